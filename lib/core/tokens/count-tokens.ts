/**
 * The router's one token count (spec §4.3 `count_tokens`, the context layers of anchor §3.8, embedding
 * truncation in spec §4.4): cl100k_base tokens of a text, special-token text counted as plain text.
 * Linear in the text (`token-segments.ts`): 1 MB of prose or code counts in ~0.1–0.2 s on these machines.
 * The encoder loads on the first call (`cl100k.ts`), not when this module is imported. Pure.
 */
import { countSegmentTokens } from './cl100k';
import { tokenSegments } from './token-segments';

export function countTokens(text: string): number {
  let tokens = 0;
  for (const segment of tokenSegments(text)) tokens += countSegmentTokens(segment);
  return tokens;
}
