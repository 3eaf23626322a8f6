/** `usage` of a rerank response: the node's count, else cl100k tokens of every (query, document) pair. */
import { describe, expect, it } from '@jest/globals';
import { countRerankTokens, rerankUsage } from '../../../../../lib/core/protocols/rerank/rerank-usage';
import { countTokens } from '../../../../../lib/core/tokens/count-tokens';

describe('countRerankTokens', () => {
  it('counts the query once per document plus every document', () => {
    const usage = countRerankTokens('hello world', ['tiktoken is great!', 'hello']);

    // "hello world" = 2 tokens, "tiktoken is great!" = 6, "hello" = 1.
    expect(usage).toEqual({ prompt_tokens: 2 * 2 + 6 + 1, total_tokens: 11 });
    expect(countTokens('tiktoken is great!')).toBe(6);
  });
});

describe('rerankUsage', () => {
  const counted = { prompt_tokens: 99, total_tokens: 99 };

  it("takes the node's total when it reported one", () => {
    expect(rerankUsage({ total_tokens: 40 }, () => counted)).toEqual({ prompt_tokens: 40, total_tokens: 40 });
    expect(rerankUsage({ prompt_tokens: 30, total_tokens: 40 }, () => counted)).toEqual({
      prompt_tokens: 30,
      total_tokens: 40,
    });
  });

  it("takes the node's prompt tokens as the total when that is all it reported", () => {
    expect(rerankUsage({ prompt_tokens: 0 }, () => counted)).toEqual({ prompt_tokens: 0, total_tokens: 0 });
  });

  it('counts when the node reported nothing', () => {
    expect(rerankUsage(undefined, () => counted)).toBe(counted);
    expect(rerankUsage({ total_tokens: null }, () => counted)).toBe(counted);
  });
});
