/** How a node's rerank scores become `relevance_score` in 0..1 (spec §4.2; the rule in relevance-scores.ts). */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { relevanceScore, scoresAreLogits, sigmoid } from '../../../../../lib/core/protocols/rerank/relevance-scores';

describe('sigmoid', () => {
  it('maps 0 to one half and is symmetric around it', () => {
    expect(sigmoid(0)).toBe(0.5);
    expect(sigmoid(2) + sigmoid(-2)).toBeCloseTo(1, 15);
    expect(sigmoid(5)).toBeCloseTo(0.9933071490757153, 15);
  });

  it('stays finite and inside 0..1 for extreme logits', () => {
    expect(sigmoid(1000)).toBe(1);
    expect(sigmoid(-1000)).toBe(0);
    expect(sigmoid(Number.MAX_VALUE)).toBe(1);
    expect(sigmoid(-Number.MAX_VALUE)).toBe(0);
  });

  it('never reverses the order of two logits', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), fc.double({ noNaN: true }), (a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(sigmoid(low)).toBeLessThanOrEqual(sigmoid(high));
        expect(sigmoid(low)).toBeGreaterThanOrEqual(0);
        expect(sigmoid(high)).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe('scoresAreLogits', () => {
  it('reads scores inside 0..1 as probabilities when the node says nothing about them', () => {
    expect(scoresAreLogits([0.99, 0.01], undefined)).toBe(false);
    expect(scoresAreLogits([0, 0.5, 1], null)).toBe(false);
  });

  it('reads scores as probabilities when the node says raw_scores false', () => {
    expect(scoresAreLogits([0, 0.5, 1], false)).toBe(false);
  });

  it('reads scores as logits when the node calls them raw, even inside 0..1', () => {
    expect(scoresAreLogits([0.2, 0.9], true)).toBe(true);
  });

  it('reads scores as logits when one lies outside 0..1, whatever the node says', () => {
    expect(scoresAreLogits([0.5, 1.2], undefined)).toBe(true);
    expect(scoresAreLogits([-0.1, 0.5], null)).toBe(true);
    expect(scoresAreLogits([0.5, 1.2], false)).toBe(true);
  });
});

describe('relevanceScore', () => {
  it('squashes a logit and leaves a probability alone', () => {
    expect(relevanceScore(0, true)).toBe(0.5);
    expect(relevanceScore(0.25, false)).toBe(0.25);
  });
});
