/** The `/v1/rerank` response (spec §4.2): best first, cut to top_n, documents only when asked. */
import { describe, expect, it } from '@jest/globals';
import { toRerankResponse } from '../../../../../lib/core/protocols/rerank/to-rerank-response';

const ranked = [
  { index: 2, relevanceScore: 0.9 },
  { index: 0, relevanceScore: 0.5 },
  { index: 1, relevanceScore: 0.1 },
];
const texts = ['zero', 'one', 'two'];
const usage = { prompt_tokens: 12, total_tokens: 12 };

describe('toRerankResponse', () => {
  it('lists every document best first without documents by default', () => {
    const response = toRerankResponse({ model: 'm', ranked, texts, topN: undefined, returnDocuments: false, usage });

    expect(response).toEqual({
      model: 'm',
      results: [
        { index: 2, relevance_score: 0.9 },
        { index: 0, relevance_score: 0.5 },
        { index: 1, relevance_score: 0.1 },
      ],
      usage,
    });
  });

  it('cuts to top_n, and gives all when top_n is larger than the count or null', () => {
    const cut = toRerankResponse({ model: 'm', ranked, texts, topN: 2, returnDocuments: false, usage });
    const larger = toRerankResponse({ model: 'm', ranked, texts, topN: 10, returnDocuments: false, usage });
    const none = toRerankResponse({ model: 'm', ranked, texts, topN: null, returnDocuments: false, usage });

    expect(cut.results.map((result) => result.index)).toEqual([2, 0]);
    expect(larger.results).toHaveLength(3);
    expect(none.results).toHaveLength(3);
  });

  it('adds document {text} of the original position when asked', () => {
    const response = toRerankResponse({ model: 'm', ranked, texts, topN: 1, returnDocuments: true, usage });

    expect(response.results).toEqual([{ index: 2, relevance_score: 0.9, document: { text: 'two' } }]);
  });
});
