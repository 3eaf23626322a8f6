/**
 * Cuts every text to embed to 2,048 tokens (spec §4.4, §8), counted with the router's one tokenizer
 * (`lib/core/tokens`, cl100k_base), before any node sees it: clients should chunk first, and a node with a
 * short context must never be handed more. Returns the texts the node gets, how many were cut (the
 * `X-Fleet-Truncated-Inputs` header) and the first one (what `truncate: false` refuses), the total the
 * usage falls back on when the node does not count, and the longest input, for the context-fit routing
 * signal. Pure.
 */
import { truncateToTokens } from '../../tokens/truncate-to-tokens';

export const MAX_EMBEDDING_INPUT_TOKENS = 2048;

export interface TruncatedInputs {
  /** The texts, each at most `maxTokens` tokens; uncut ones are the client's own strings. */
  readonly texts: readonly string[];
  /** Tokens of all the (cut) texts together. */
  readonly tokens: number;
  /** Tokens of the longest (cut) text. */
  readonly longest: number;
  /** How many texts were cut. */
  readonly truncated: number;
  /** The index of the first text that was cut, when one was. */
  readonly firstCut: number | undefined;
}

export function truncateInputs(
  texts: readonly string[],
  maxTokens: number = MAX_EMBEDDING_INPUT_TOKENS,
): TruncatedInputs {
  const cut: string[] = new Array<string>(texts.length);
  let tokens = 0;
  let longest = 0;
  let truncated = 0;
  let firstCut: number | undefined;
  texts.forEach((text, index) => {
    const result = truncateToTokens(text, maxTokens);
    cut[index] = result.text;
    tokens += result.tokens;
    longest = Math.max(longest, result.tokens);
    if (!result.truncated) return;
    truncated++;
    firstCut ??= index;
  });
  return { texts: cut, tokens, longest, truncated, firstCut };
}
