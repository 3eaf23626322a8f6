/** Checking and ordering a node's rerank results (protocols §7: re-order by index; 502 on a bad reply). */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { UpstreamError } from '../../../../../lib/core/errors';
import { rankNodeResults } from '../../../../../lib/core/protocols/rerank/rank-node-results';
import { sigmoid } from '../../../../../lib/core/protocols/rerank/relevance-scores';

describe('rankNodeResults', () => {
  it('sorts results the node listed in input order best first, keeping each original index', () => {
    const results = [
      { index: 0, relevance_score: -3 },
      { index: 1, relevance_score: 4 },
      { index: 2, relevance_score: 0.5 },
    ];

    const ranked = rankNodeResults(results, 3);

    expect(ranked).toEqual([
      { index: 1, relevanceScore: sigmoid(4) },
      { index: 2, relevanceScore: sigmoid(0.5) },
      { index: 0, relevanceScore: sigmoid(-3) },
    ]);
  });

  it('breaks equal scores by original index', () => {
    const ranked = rankNodeResults(
      [
        { index: 2, relevance_score: 1 },
        { index: 0, relevance_score: 1 },
        { index: 1, relevance_score: 2 },
      ],
      3,
    );

    expect(ranked.map((result) => result.index)).toEqual([1, 0, 2]);
  });

  it('keeps the order of logits that the sigmoid squashes to the same score', () => {
    const ranked = rankNodeResults(
      [
        { index: 0, relevance_score: 40 },
        { index: 1, relevance_score: 50 },
      ],
      2,
    );

    expect(ranked.map((result) => result.index)).toEqual([1, 0]);
    expect(ranked.map((result) => result.relevanceScore)).toEqual([1, 1]);
  });

  it('passes probabilities through when the node says raw_scores false', () => {
    const ranked = rankNodeResults(
      [
        { index: 0, relevance_score: 0.1 },
        { index: 1, relevance_score: 0.95 },
      ],
      2,
      false,
    );

    expect(ranked).toEqual([
      { index: 1, relevanceScore: 0.95 },
      { index: 0, relevanceScore: 0.1 },
    ]);
  });

  it('passes probabilities through when the node says nothing about them, as a node agent does', () => {
    const ranked = rankNodeResults(
      [
        { index: 0, relevance_score: 0.01 },
        { index: 1, relevance_score: 0.99 },
      ],
      2,
    );

    expect(ranked).toEqual([
      { index: 1, relevanceScore: 0.99 },
      { index: 0, relevanceScore: 0.01 },
    ]);
  });

  it('squashes scores inside 0..1 when the node says they are raw logits', () => {
    const ranked = rankNodeResults([{ index: 0, relevance_score: 0.95 }], 1, true);

    expect(ranked).toEqual([{ index: 0, relevanceScore: sigmoid(0.95) }]);
  });

  it.each([
    [
      'an index past the end',
      [
        { index: 2, relevance_score: 1 },
        { index: 0, relevance_score: 0 },
      ],
      /names document 2, but 2 were sent/,
    ],
    [
      'a negative index',
      [
        { index: -1, relevance_score: 1 },
        { index: 0, relevance_score: 0 },
      ],
      /names document -1/,
    ],
    [
      'an index twice',
      [
        { index: 0, relevance_score: 1 },
        { index: 0, relevance_score: 0 },
      ],
      /scores document 0 twice/,
    ],
    ['a document left out', [{ index: 1, relevance_score: 1 }], /scores 1 of the 2 documents sent/],
    ['no results at all', [], /scores 0 of the 2 documents sent/],
  ])('answers 502 for %s', (_case, results, message) => {
    const rank = () => rankNodeResults(results, 2);

    expect(rank).toThrow(UpstreamError);
    expect(rank).toThrow(message);
  });

  it('gives every document once, in 0..1, never worse before better, whatever order the node used', () => {
    const logits = fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 50 });
    fc.assert(
      fc.property(logits, fc.integer(), (scores, seed) => {
        const results = scores.map((relevance_score, index) => ({ index, relevance_score }));
        const shuffled = [...results].sort((a, b) => ((a.index * 7919 + seed) % 97) - ((b.index * 7919 + seed) % 97));

        const ranked = rankNodeResults(shuffled, scores.length);

        expect(ranked.map((result) => result.index).sort((a, b) => a - b)).toEqual(scores.map((_, index) => index));
        for (const [position, result] of ranked.entries()) {
          expect(result.relevanceScore).toBeGreaterThanOrEqual(0);
          expect(result.relevanceScore).toBeLessThanOrEqual(1);
          const next = ranked[position + 1];
          if (next !== undefined) {
            expect(scores[result.index]).toBeGreaterThanOrEqual(scores[next.index] ?? Number.NaN);
            expect(result.relevanceScore).toBeGreaterThanOrEqual(next.relevanceScore);
          }
        }
      }),
    );
  });
});
