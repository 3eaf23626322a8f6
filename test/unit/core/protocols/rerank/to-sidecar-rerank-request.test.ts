/** The sidecar's rerank body (ARCHITECTURE.md §8.3) from a client request. */
import { describe, expect, it } from '@jest/globals';
import { toSidecarRerankRequest } from '../../../../../lib/core/protocols/rerank/to-sidecar-rerank-request';

describe('toSidecarRerankRequest', () => {
  it('sends the model the node knows, the query and the documents as strings', () => {
    const body = toSidecarRerankRequest({ query: 'q', documents: [{ text: 'a' }, 'b'] }, 'bge-reranker-base', [
      'a',
      'b',
    ]);

    expect(body).toEqual({ model: 'bge-reranker-base', query: 'q', documents: ['a', 'b'] });
  });

  it("withholds the router's own fields, top_n, return_documents and raw_scores, and forwards the rest", () => {
    const body = toSidecarRerankRequest(
      {
        model: 'asked',
        query: 'q',
        documents: ['a'],
        top_n: 1,
        return_documents: true,
        raw_scores: false,
        fallback_models: ['other'],
        metadata: { tags: ['team'] },
        user: 'ada',
        max_tokens_per_doc: 512,
      },
      'served',
      ['a'],
    );

    expect(body).toEqual({ model: 'served', query: 'q', documents: ['a'], max_tokens_per_doc: 512 });
  });
});
