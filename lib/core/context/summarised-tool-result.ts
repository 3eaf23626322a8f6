/**
 * Layer 2 of the context layers (anchor §3.8), the words: what a fleet model is asked in order to
 * summarise one tool result, the text that replaces the result, and the key its summary is cached under.
 * The replacement opens with `[summarised <a>→<b> tokens]` (the result's tokens before, the summary's
 * after) so the model reading the conversation, and anyone reading a trace, knows the text is not the
 * tool's own. A summary is cut to `SUMMARY_MAX_TOKENS` whatever the model wrote. The cache key is the
 * content's sha256 under a strategy version: the same result, resent on every turn, gets the same
 * summary (the prompt's prefix stays the same for the node's cache), and changing the words below means
 * changing `SUMMARY_STRATEGY`, so no summary made the old way is reused. Pure.
 */
import { createHash } from 'node:crypto';
import { countTokens } from '../tokens/count-tokens';
import { truncateToTokens } from '../tokens/truncate-to-tokens';
import type { OllamaMessage } from '../wire/ollama';
import { SUMMARY_MAX_TOKENS } from './select-compaction-candidates';

export const SUMMARY_STRATEGY = 'tool-result-v1';

const INSTRUCTIONS =
  'You shorten tool output for a coding agent whose context window is full. Summarise the tool result ' +
  `the user sends in at most ${SUMMARY_MAX_TOKENS - 100} tokens. Keep what the agent may need to carry ` +
  'on: file paths, names of functions and variables, error messages, line numbers, numbers, and the ' +
  'outcome. Drop repetition and boilerplate. Answer with the summary only, no preamble.';

/** The content's cache key under this strategy: `<strategy>#<sha256 hex>`. */
export function summaryCacheKey(content: string): string {
  return `${SUMMARY_STRATEGY}#${createHash('sha256').update(content).digest('hex')}`;
}

/** The chat that asks a model for one summary. */
export function summaryMessages(content: string): OllamaMessage[] {
  return [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: `Tool result:\n\n${content}` },
  ];
}

/**
 * The text that replaces a result of `originalTokens` tokens, from what the model answered; undefined
 * when it answered nothing usable (an empty summary is a failure, never an empty result).
 */
export function summarisedToolResult(summary: string, originalTokens: number): string | undefined {
  const cut = truncateToTokens(summary.trim(), SUMMARY_MAX_TOKENS);
  const text = cut.text.trimEnd();
  if (text === '') return undefined;
  const tokens = text === cut.text ? cut.tokens : countTokens(text);
  return `[summarised ${originalTokens}→${tokens} tokens]\n${text}`;
}
