/**
 * Cuts a text to at most `maxTokens` tokens, as `countTokens` counts them: embedding inputs are cut to
 * 2,048 tokens (spec §4.4, §8). The cut falls on a character boundary (never inside a surrogate pair or a
 * UTF-8 sequence), at the last whole BPE piece that fits and then as many characters of the next piece as
 * still fit. Only the segments up to the cut are tokenized, so cutting 1 MB to 2,048 tokens costs about
 * what counting 2,048 tokens does. Pure.
 */
import { countSegmentTokens, segmentPieces } from './cl100k';
import { countTokens } from './count-tokens';
import { isLowSurrogate, tokenSegments } from './token-segments';

export interface TruncatedText {
  /** The text, or its longest prefix found within the limit. */
  readonly text: string;
  /** `countTokens(text)`. */
  readonly tokens: number;
  readonly truncated: boolean;
}

/** The longest prefix of a piece that stays within `budget` tokens; the whole piece is known not to. */
function fittingPrefixLength(piece: string, budget: number): number {
  // Prefix lengths that end on a character boundary (a piece is at most a few hundred characters).
  const ends: number[] = [0];
  for (let index = 1; index < piece.length; index++) {
    if (!isLowSurrogate(piece.charCodeAt(index))) ends.push(index);
  }
  let low = 0; // ends[low] fits (0 tokens for the empty prefix)
  let high = ends.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (countSegmentTokens(piece.slice(0, ends[middle])) <= budget) low = middle;
    else high = middle - 1;
  }
  return ends[low] ?? 0;
}

type Cut = { readonly whole: true; readonly tokens: number } | { readonly whole: false; readonly index: number };

/** Where the budget runs out: the segments and pieces that fit, then the part of the next piece that does. */
function findCut(text: string, maxTokens: number): Cut {
  let used = 0;
  let offset = 0;
  for (const segment of tokenSegments(text)) {
    const tokens = countSegmentTokens(segment);
    if (used + tokens <= maxTokens) {
      used += tokens;
      offset += segment.length;
      continue;
    }
    for (const piece of segmentPieces(segment)) {
      if (used + piece.tokens > maxTokens) {
        return { whole: false, index: offset + fittingPrefixLength(piece.text, maxTokens - used) };
      }
      used += piece.tokens;
      offset += piece.text.length;
    }
    return { whole: false, index: offset }; // not reached: the pieces add up to the segment's count
  }
  return { whole: true, tokens: used };
}

export function truncateToTokens(text: string, maxTokens: number): TruncatedText {
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 0) {
    throw new RangeError(`maxTokens must be a non-negative integer, not ${maxTokens}`);
  }
  const found = findCut(text, maxTokens);
  if (found.whole) return { text, tokens: found.tokens, truncated: false };
  // A prefix that ends inside a piece can, rarely, tokenize into more tokens than its share of the whole:
  // recount, and step back a character at a time until it fits.
  let cut = found.index;
  for (;;) {
    const prefix = text.slice(0, cut);
    const tokens = countTokens(prefix);
    if (tokens <= maxTokens) return { text: prefix, tokens, truncated: true };
    cut -= isLowSurrogate(text.charCodeAt(cut - 1)) ? 2 : 1;
  }
}
