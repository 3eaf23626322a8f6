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
    const answer = (standing: number, evaluatedTokens: number) =>
      residency.observe('a', 'm', { promptTokens: 1000, prefixTokens: 800, evaluatedTokens, standing, slots });
    // The node keeps prompts longer than the prior thinks: turns at standing 3 come back held…
    for (let round = 0; round < 6; round += 1) answer(3, 210);
    // …and turns at standing 5 evaluated whole.
    for (let round = 0; round < 6; round += 1) answer(5, 995);
    const at = (others: number) => {
      residency.served('c1', 'a', 'm');
      for (let other = 0; other < others; other += 1) residency.served(`o${other}`, 'a', 'm');
      expect(residency.standing('c1', 'a', 'm')).toBe(others);
      return residency.likelihood('c1', 'a', 'm', slots);
    };
    // Held at 3 speaks for standing 1 (the fleet's figure, then the node's): (6 + 2 × 1) / 8.
    expect(at(1)).toBe(1);
    // At 3, from the prior 2/4: the fleet's (6 + 2 × 0.5) / 8, then the node's (6 + 2 × 0.875) / 8.
    expect(at(3)).toBeCloseTo((6 + 2 * 0.875) / 8, 10);
    // Nothing seen at standing 4: the prior, 2/5.
    expect(at(4)).toBeCloseTo(2 / 5, 10);
    // Gone at 5 speaks for standing 7, from the prior 2/8: the fleet's 0.5 / 8, then the node's.
    expect(at(7)).toBeCloseTo((2 * (0.5 / 8)) / 8, 10);
  });

  it("starts a node that has said nothing yet from what its peers' answers showed", () => {
    const residency = createPrefixResidency();
    for (let round = 0; round < 6; round += 1) {
      residency.observe('a', 'm', {
        promptTokens: 1000,
        prefixTokens: 800,
        evaluatedTokens: 995,
        standing: 4,
        slots: 4,
      });
    }
    residency.served('c1', 'b', 'm');
    for (let other = 0; other < 4; other += 1) residency.served(`o${other}`, 'b', 'm');
    // b has as many slots and the same standing: a's six answers against the prior 4/5.
    expect(residency.likelihood('c1', 'b', 'm', 4)).toBeCloseTo((2 * 0.8) / 8, 10);
    // With twice the slots, standing 4 is well inside them: the prior, 1.
    expect(residency.likelihood('c1', 'b', 'm', 8)).toBe(1);
    // Another conversation never sent there is still not known anywhere.
    expect(residency.likelihood('c9', 'b', 'm', 4)).toBeUndefined();
  });

  it("judges held against the node's own token count, learnt from prompts with nothing to reuse", () => {
    const residency = createPrefixResidency();
    const slots = 4;
    const answer = (prefixTokens: number, evaluatedTokens: number, standing: number | undefined) =>
      residency.observe('a', 'm', { promptTokens: 1000, prefixTokens, evaluatedTokens, standing, slots });
    // The node's tokenizer counts 1.3 tokens per token of the router's estimate.
    for (let round = 0; round < 30; round += 1) answer(0, 1300, undefined);
    // A prefix of 40 % held: the node evaluated 1.3 × 600 = 780, under 1.3 × (1,000 − 200) = 1,040.
    for (let round = 0; round < 4; round += 1) answer(400, 780, 0);
    // Gone: the whole prompt, 1.3 × 1,000 = 1,300.
    for (let round = 0; round < 4; round += 1) answer(400, 1300, 1);
    residency.served('c1', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', slots)).toBe(1);
    residency.served('c2', 'a', 'm');
    // Fleet and node alike: four gone at standing 1 against a prior of 1, then again.
    expect(residency.likelihood('c1', 'a', 'm', slots)).toBeCloseTo((2 * (2 / 6)) / 6, 10);
  });

  it('lets old answers fade, so a node whose cache changed is relearnt', () => {
    const residency = createPrefixResidency();
    const answer = (evaluatedTokens: number) =>
      residency.observe('a', 'm', { promptTokens: 1000, prefixTokens: 800, evaluatedTokens, standing: 0, slots: 4 });
    for (let round = 0; round < 100; round += 1) answer(995);
    for (let round = 0; round < 40; round += 1) answer(210);
    residency.served('c1', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 4)).toBeGreaterThan(0.7);
  });
});
