import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import { countTokens } from '../../../../lib/core/tokens/count-tokens';
import { truncateToTokens } from '../../../../lib/core/tokens/truncate-to-tokens';
import { sampleText } from './sample-text';

const EMBEDDING_LIMIT = 2_048;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('truncateToTokens', () => {
  it('returns a text within the limit whole', () => {
    expect(truncateToTokens('hello world', 2)).toEqual({ text: 'hello world', tokens: 2, truncated: false });
    expect(truncateToTokens('', 0)).toEqual({ text: '', tokens: 0, truncated: false });
  });

  it('cuts one token over the limit at the last token boundary', () => {
    expect(truncateToTokens('hello world', 1)).toEqual({ text: 'hello', tokens: 1, truncated: true });
    expect(truncateToTokens('tiktoken is great!', 5)).toEqual({
      text: 'tiktoken is great',
      tokens: 5,
      truncated: true,
    });
  });

  it('cuts to nothing at a limit of 0', () => {
    expect(truncateToTokens('hello', 0)).toEqual({ text: '', tokens: 0, truncated: true });
  });

  it('cuts a long input to exactly 2,048 tokens, a prefix that counts the same', () => {
    const text = sampleText(400_000);

    const result = truncateToTokens(text, EMBEDDING_LIMIT);

    expect(result.truncated).toBe(true);
    expect(result.tokens).toBe(EMBEDDING_LIMIT);
    expect(countTokens(result.text)).toBe(EMBEDDING_LIMIT);
    expect(text.startsWith(result.text)).toBe(true);
  });

  it('keeps a text of exactly the limit and cuts it at one less', () => {
    const text = truncateToTokens(sampleText(50_000), EMBEDDING_LIMIT).text;

    expect(truncateToTokens(text, EMBEDDING_LIMIT)).toEqual({ text, tokens: EMBEDDING_LIMIT, truncated: false });
    expect(truncateToTokens(text, EMBEDDING_LIMIT - 1).tokens).toBe(EMBEDDING_LIMIT - 1);
  });

  it('cuts inside a long piece on a character boundary', () => {
    const emoji = '🙂'.repeat(50);

    const result = truncateToTokens(emoji, 7);

    expect(result.tokens).toBeLessThanOrEqual(7);
    expect(result.text).not.toMatch(LONE_SURROGATE);
    expect(emoji.startsWith(result.text)).toBe(true);
  });

  it('returns a prefix within the limit that counts as it says, for any text and limit, lone surrogates too', () => {
    // biome-ignore lint/nursery/noFloatingPromises: fc.assert of a synchronous property returns void, not a promise.
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.string({ unit: 'binary', maxLength: 400 })),
        fc.nat(120),
        (text, limit) => {
          const result = truncateToTokens(text, limit);

          expect(text.startsWith(result.text)).toBe(true);
          expect(result.tokens).toBeLessThanOrEqual(limit);
          expect(result.tokens).toBe(countTokens(result.text));
          expect(result.truncated).toBe(result.text !== text);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects a negative or fractional limit', () => {
    expect(() => truncateToTokens('x', -1)).toThrow(RangeError);
    expect(() => truncateToTokens('x', 1.5)).toThrow(RangeError);
  });
});
