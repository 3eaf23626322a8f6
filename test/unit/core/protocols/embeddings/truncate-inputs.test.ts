import { describe, expect, it } from '@jest/globals';
import {
  MAX_EMBEDDING_INPUT_TOKENS,
  truncateInputs,
} from '../../../../../lib/core/protocols/embeddings/truncate-inputs';
import { countTokens } from '../../../../../lib/core/tokens/count-tokens';

/** `hello` then ` hello`: one token each, so `words(n)` is n tokens. */
const words = (count: number) => `hello${' hello'.repeat(count - 1)}`;

describe('truncateInputs', () => {
  it('keeps texts within the limit whole, the same strings, and counts them', () => {
    const texts = ['hello world', words(2048)];

    const result = truncateInputs(texts);

    expect(result.texts).toEqual(texts);
    expect(result.texts[1]).toBe(texts[1]);
    expect(result).toMatchObject({ tokens: 2 + 2048, longest: 2048, truncated: 0, firstCut: undefined });
  });

  it('cuts every text over 2,048 tokens to 2,048 and counts the cut ones', () => {
    const long = words(5000);

    const result = truncateInputs(['short', long, words(2049)]);

    expect(MAX_EMBEDDING_INPUT_TOKENS).toBe(2048);
    expect(result.truncated).toBe(2);
    expect(result.texts[0]).toBe('short');
    expect(result.texts[1]).toBe(words(2048));
    expect(countTokens(result.texts[2] ?? '')).toBe(2048);
    expect(result).toMatchObject({ tokens: 1 + 2048 + 2048, longest: 2048, firstCut: 1 });
  });

  it('takes another limit', () => {
    expect(truncateInputs(['hello world'], 1)).toEqual({
      texts: ['hello'],
      tokens: 1,
      longest: 1,
      truncated: 1,
      firstCut: 0,
    });
  });

  it('returns nothing for no texts', () => {
    expect(truncateInputs([])).toEqual({ texts: [], tokens: 0, longest: 0, truncated: 0 });
  });
});
