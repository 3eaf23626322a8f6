/**
 * Layer 2 of the context layers (anchor §3.8), the choice: which tool results a fleet model should
 * summarise so that the prompt fits the compaction budget. Only results older than the newest
 * `keepRecent` (the ones the model is working with stay whole, as in Layer 1), and only large ones (over
 * `COMPACTION_MIN_TOKENS`: a short result is not worth a model call). Largest first, and no more than
 * needed: each is counted as if it came back at `SUMMARY_MAX_TOKENS` (plus its marker), and the choice
 * stops once the projected prompt is within the budget. When even all of them would not do, all are
 * chosen: a smaller prompt still helps the cap and the node. Deterministic for a given request, so the
 * next turn chooses the same results and finds their summaries cached. Pure.
 */
import type { OllamaMessage } from '../wire/ollama';

/** Results at or below this many tokens are never summarised. */
export const COMPACTION_MIN_TOKENS = 1_500;
/** A summary is cut to this many tokens. */
export const SUMMARY_MAX_TOKENS = 400;
/** What the `[summarised a→b tokens]` marker line costs, at most. */
const MARKER_TOKENS = 16;

export interface CompactionCandidate {
  /** Index in `messages`. */
  readonly index: number;
  readonly tokens: number;
}

export interface SelectCompactionOptions {
  /** Tokens the prompt should come down to. */
  readonly budgetTokens: number;
  /** How many of the newest tool results are never summarised. */
  readonly keepRecent: number;
}

/**
 * `messageTokens[i]` is `estimateMessageTokens(messages[i])` and `totalTokens` the prompt's estimate
 * (`measurePrompt`, or what Layer 1 returns); nothing is counted again here.
 */
export function selectCompactionCandidates(
  messages: readonly OllamaMessage[],
  messageTokens: readonly number[],
  totalTokens: number,
  options: SelectCompactionOptions,
): CompactionCandidate[] {
  const results = messages.flatMap((message, index) => (message.role === 'tool' ? [index] : []));
  const older = results.slice(0, Math.max(0, results.length - options.keepRecent));
  const large = older
    .map((index) => ({ index, tokens: messageTokens[index] ?? 0 }))
    .filter((candidate) => candidate.tokens > COMPACTION_MIN_TOKENS)
    .sort((a, b) => b.tokens - a.tokens || a.index - b.index);
  const chosen: CompactionCandidate[] = [];
  let projected = totalTokens;
  for (const candidate of large) {
    if (projected <= options.budgetTokens) break;
    chosen.push(candidate);
    projected -= candidate.tokens - SUMMARY_MAX_TOKENS - MARKER_TOKENS;
  }
  return chosen;
}
