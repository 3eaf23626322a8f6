/**
 * What the router makes of a node's whole rerank reply (spec §4.2, §7): the response, the trace's token
 * counts, the node's refusals with its status, and 502 for replies it cannot use.
 */
import { describe, expect, it } from '@jest/globals';
import { RouterError, UpstreamError } from '../../../../lib/core/errors';
import { sigmoid } from '../../../../lib/core/protocols/rerank/relevance-scores';
import { countRerankTokens } from '../../../../lib/core/protocols/rerank/rerank-usage';
import { interpretRerankReply, type RerankAsked } from '../../../../lib/features/rerank/interpret-rerank-reply';
import { rerankAttempt } from './attempts';

const asked: RerankAsked = {
  query: 'capital of France',
  texts: ['Berlin is in Germany', 'Paris is the capital of France', 'Lyon is in France'],
  topN: undefined,
  returnDocuments: false,
};

function answer(status: number, body: unknown) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { status, body: Buffer.from(text), attempt: rerankAttempt() };
}

function thrown(run: () => unknown): RouterError {
  try {
    run();
  } catch (error) {
    if (error instanceof RouterError) return error;
    throw error;
  }
  throw new Error('expected a RouterError');
}

describe('interpretRerankReply', () => {
  it('answers the served model, results best first in 0..1 and counted usage, and reports prompt tokens', () => {
    const reply = {
      model: 'ms-marco-minilm-l-6-v2',
      results: [
        { index: 0, relevance_score: -4.2 },
        { index: 2, relevance_score: 1.5 },
        { index: 1, relevance_score: 4.9 },
      ],
    };

    const routed = interpretRerankReply(answer(200, reply), asked);

    const usage = countRerankTokens(asked.query, asked.texts);
    expect(routed.value).toEqual({
      model: 'ms-marco-minilm-l-6-v2',
      results: [
        { index: 1, relevance_score: sigmoid(4.9) },
        { index: 2, relevance_score: sigmoid(1.5) },
        { index: 0, relevance_score: sigmoid(-4.2) },
      ],
      usage,
    });
    expect(routed.promptTokens).toBe(usage.total_tokens);
    expect(routed.completionTokens).toBe(0);
  });

  it("uses the node's usage, top_n and return_documents", () => {
    const reply = {
      results: [
        { index: 1, relevance_score: 0.98 },
        { index: 2, relevance_score: 0.4 },
        { index: 0, relevance_score: 0.01 },
      ],
      raw_scores: false,
      usage: { total_tokens: 42 },
    };

    const routed = interpretRerankReply(answer(200, reply), { ...asked, topN: 1, returnDocuments: true });

    expect(routed.value.results).toEqual([
      { index: 1, relevance_score: 0.98, document: { text: 'Paris is the capital of France' } },
    ]);
    expect(routed.value.usage).toEqual({ prompt_tokens: 42, total_tokens: 42 });
    expect(routed.promptTokens).toBe(42);
  });

  it("keeps a node agent's scores, already through the sigmoid on the node, as they are", () => {
    // What herd-node's sidecar answers (anchor §12): probabilities, best first, its word-count usage.
    const reply = {
      model: 'ms-marco-minilm-l-6-v2',
      results: [
        { index: 1, relevance_score: 0.99 },
        { index: 2, relevance_score: 0.3 },
        { index: 0, relevance_score: 0.01 },
      ],
      usage: { total_tokens: 21 },
    };

    const routed = interpretRerankReply(answer(200, reply), asked);

    expect(routed.value.results).toEqual([
      { index: 1, relevance_score: 0.99 },
      { index: 2, relevance_score: 0.3 },
      { index: 0, relevance_score: 0.01 },
    ]);
  });

  it('still squashes the scores of a backend that says it sends raw logits', () => {
    const reply = {
      results: [
        { index: 1, relevance_score: 0.9 },
        { index: 2, relevance_score: 0.5 },
        { index: 0, relevance_score: 0.1 },
      ],
      raw_scores: true,
    };

    const routed = interpretRerankReply(answer(200, reply), asked);

    expect(routed.value.results.map((result) => result.relevance_score)).toEqual([
      sigmoid(0.9),
      sigmoid(0.5),
      sigmoid(0.1),
    ]);
  });

  it("passes a sidecar's refusal on with its status and its detail", () => {
    const error = thrown(() => interpretRerankReply(answer(404, { detail: 'Unknown model: nope' }), asked));

    expect(error.status).toBe(404);
    expect(error.message).toBe('Unknown model: nope');
  });

  it('reads a refusal in the {"error": ...} shape too', () => {
    const error = thrown(() => interpretRerankReply(answer(400, { error: 'query is required' }), asked));

    expect(error.status).toBe(400);
    expect(error.message).toBe('query is required');
  });

  it.each([
    ['a body that is not JSON', 'Internal nonsense', /not JSON/],
    ['a body without results', { scores: [1, 2, 3] }, /unusable: results: /],
    ['a result without a score', { results: [{ index: 0 }] }, /unusable: results\.0\.relevance_score: /],
    ['a fractional index', { results: [{ index: 0.5, relevance_score: 1 }] }, /unusable: results\.0\.index: /],
    [
      'a result for a document never sent',
      {
        results: [
          { index: 0, relevance_score: 1 },
          { index: 1, relevance_score: 1 },
          { index: 3, relevance_score: 1 },
        ],
      },
      /names document 3, but 3 were sent/,
    ],
  ])('answers 502 for %s', (_case, body, message) => {
    const error = thrown(() => interpretRerankReply(answer(200, body), asked));

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(message);
  });
});
