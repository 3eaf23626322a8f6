import { describe, expect, it } from '@jest/globals';
import { createPrefixResidency } from '../../../../lib/services/dispatch/prefix-residency';

describe('createPrefixResidency', () => {
  it('expects the prompt held while fewer other conversations than slots came since, then less and less', () => {
    const residency = createPrefixResidency();
    residency.served('c1', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBe(1);
    residency.served('c2', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBe(1);
    residency.served(undefined, 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBeCloseTo(2 / 3, 10);
    for (let other = 0; other < 7; other += 1) residency.served(undefined, 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBeCloseTo(2 / 10, 10);
  });

  it('does not count the turns of a conversation already held as pushing another out', () => {
    const residency = createPrefixResidency();
    residency.served('c1', 'a', 'm');
    for (let turn = 0; turn < 10; turn += 1) residency.served('c2', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBe(1);
    residency.served('c3', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBeCloseTo(2 / 3, 10);
    residency.served('c1', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBe(1);
    expect(residency.likelihood('c3', 'a', 'm', 2)).toBe(1);
    expect(residency.likelihood('c2', 'a', 'm', 2)).toBeCloseTo(2 / 3, 10);
    residency.served('c4', 'a', 'm');
    expect(residency.likelihood('c3', 'a', 'm', 2)).toBeCloseTo(2 / 3, 10);
    expect(residency.likelihood('c2', 'a', 'm', 2)).toBeCloseTo(2 / 4, 10);
  });

  it('counts a conversation pushed past the per-node bound as nearly gone', () => {
    const residency = createPrefixResidency(4000, 3);
    residency.served('c1', 'a', 'm');
    for (const other of ['c2', 'c3', 'c4']) residency.served(other, 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 1)).toBeCloseTo(1 / 4, 10);
    expect(residency.likelihood('c4', 'a', 'm', 1)).toBe(1);
  });

  it('expects nothing on another node or model or once it moved, and knows nothing of a conversation it never sent', () => {
    const residency = createPrefixResidency();
    residency.served('c1', 'a', 'm');
    expect(residency.likelihood('c1', 'b', 'm', 4)).toBe(0);
    expect(residency.likelihood('c1', 'a', 'other', 4)).toBe(0);
    expect(residency.likelihood('c9', 'a', 'm', 4)).toBeUndefined();
    residency.served('c1', 'b', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 4)).toBe(0);
    expect(residency.likelihood('c1', 'b', 'm', 4)).toBe(1);
  });

  it('forgets the oldest conversation beyond its bound', () => {
    const residency = createPrefixResidency(2);
    residency.served('c1', 'a', 'm');
    residency.served('c2', 'a', 'm');
    residency.served('c3', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 8)).toBeUndefined();
    expect(residency.likelihood('c3', 'a', 'm', 8)).toBe(1);
  });

  it('learns from the answers how many others the node takes before a prefix is gone', () => {
    const residency = createPrefixResidency();
    const slots = 2;
    // The node keeps prompts longer than the prior thinks: turns at standing 3 come back held…
    for (let round = 0; round < 6; round += 1) {
      residency.observe('a', 'm', { promptTokens: 1000, prefixTokens: 800, evaluatedTokens: 210, standing: 3 });
    }
    // …and turns at standing 5 evaluated whole.
    for (let round = 0; round < 6; round += 1) {
      residency.observe('a', 'm', { promptTokens: 1000, prefixTokens: 800, evaluatedTokens: 995, standing: 5 });
    }
    const others = (count: number) => {
      for (let other = 0; other < count; other += 1) residency.served(`o${other}`, 'a', 'm');
    };
    residency.served('c1', 'a', 'm');
    others(1);
    expect(residency.standing('c1', 'a', 'm')).toBe(1);
    // Held at 3 speaks for standing 1: (6 + 2 × 1) / (6 + 2).
    expect(residency.likelihood('c1', 'a', 'm', slots)).toBe(1);
    residency.served('c1', 'a', 'm');
    others(3);
    // Prior 2/4 at standing 3, with six held there: (6 + 2 × 0.5) / 8.
    expect(residency.likelihood('c1', 'a', 'm', slots)).toBeCloseTo(7 / 8, 10);
    residency.served('c1', 'a', 'm');
    others(4);
    // Nothing seen at standing 4: the prior, 2/5.
    expect(residency.likelihood('c1', 'a', 'm', slots)).toBeCloseTo(2 / 5, 10);
    residency.served('c1', 'a', 'm');
    others(7);
    // Gone at 5 speaks for standing 7: (0 + 2 × 2/8) / (6 + 2).
    expect(residency.likelihood('c1', 'a', 'm', slots)).toBeCloseTo(0.5 / 8, 10);
    // Another node learnt nothing: its prior stands.
    residency.served('c1', 'b', 'm');
    expect(residency.likelihood('c1', 'b', 'm', slots)).toBe(1);
    expect(residency.standing('c1', 'a', 'm')).toBeUndefined();
  });

  it("judges held against the node's own token count, learnt from prompts with nothing to reuse", () => {
    const residency = createPrefixResidency();
    // The node's tokenizer counts 1.3 tokens per token of the router's estimate.
    for (let round = 0; round < 30; round += 1) {
      residency.observe('a', 'm', { promptTokens: 1000, prefixTokens: 0, evaluatedTokens: 1300, standing: undefined });
    }
    // A prefix of 40 % held: the node evaluated 1.3 × 600 = 780, under 1.3 × (1,000 − 200) = 1,040.
    for (let round = 0; round < 4; round += 1) {
      residency.observe('a', 'm', { promptTokens: 1000, prefixTokens: 400, evaluatedTokens: 780, standing: 0 });
    }
    // Gone: the whole prompt, 1.3 × 1,000 = 1,300.
    for (let round = 0; round < 4; round += 1) {
      residency.observe('a', 'm', { promptTokens: 1000, prefixTokens: 400, evaluatedTokens: 1300, standing: 1 });
    }
    residency.served('c1', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 4)).toBeCloseTo((4 + 2) / (4 + 2), 10);
    residency.served('c2', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 4)).toBeCloseTo((0 + 2) / (4 + 2), 10);
  });

  it('lets old answers fade, so a node whose cache changed is relearnt', () => {
    const residency = createPrefixResidency();
    for (let round = 0; round < 100; round += 1) {
      residency.observe('a', 'm', { promptTokens: 1000, prefixTokens: 800, evaluatedTokens: 995, standing: 0 });
    }
    for (let round = 0; round < 40; round += 1) {
      residency.observe('a', 'm', { promptTokens: 1000, prefixTokens: 800, evaluatedTokens: 210, standing: 0 });
    }
    residency.served('c1', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 4)).toBeGreaterThan(0.7);
  });
});
