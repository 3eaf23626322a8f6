import { describe, expect, it } from '@jest/globals';
import { createNodeRates } from '../../../../lib/services/dispatch/node-rates';

describe('createNodeRates', () => {
  it('learns prefill and decode rates and cold loads from what the node reported, smoothed', () => {
    const rates = createNodeRates();
    expect(rates.ratesOf('a', 'm')).toBeUndefined();
    rates.observe('a', 'm', {
      promptTokens: 2000,
      promptEvalMs: 1000,
      completionTokens: 100,
      evalMs: 4000,
      loadMs: 3000,
    });
    const entry = rates.ratesOf('a', 'm');
    expect(entry).toMatchObject({ prefillTps: 2000, decodeTps: 25, loadMs: 3000, samples: 1 });
    rates.observe('a', 'm', { promptTokens: 1000, promptEvalMs: 1000, completionTokens: 100, evalMs: 2000, loadMs: 2 });
    // The same object, moved 30 % of the way to the new observation; a warm load is no cold load.
    expect(rates.ratesOf('a', 'm')).toBe(entry);
    expect(entry?.prefillTps).toBeCloseTo(1700, 6);
    expect(entry?.decodeTps).toBeCloseTo(32.5, 6);
    expect(entry?.loadMs).toBe(3000);
  });

  it('keeps the prefill rate the node would have alone, from the slowdown expected when the request was sent', () => {
    const rates = createNodeRates();
    rates.observe('a', 'm', { promptTokens: 1000, promptEvalMs: 1000 }, 1);
    expect(rates.ratesOf('a', 'm')?.prefillTps).toBe(2000);
  });

  it('ignores prompts and answers too short to time, and counts a new node:model in its version', () => {
    const rates = createNodeRates();
    const before = rates.version;
    rates.observe('a', 'm', { promptTokens: 5, promptEvalMs: 1, completionTokens: 2, evalMs: 10 });
    expect(rates.version).toBe(before + 1);
    expect(rates.ratesOf('a', 'm')).toMatchObject({ prefillTps: undefined, decodeTps: undefined, samples: 1 });
    rates.observe('a', 'm', {});
    expect(rates.version).toBe(before + 1);
    expect(rates.entries()).toEqual([
      { nodeId: 'a', model: 'm', prefillTps: undefined, decodeTps: undefined, loadMs: undefined, samples: 2 },
    ]);
  });

  it('scales the priors as the observed nodes ran against theirs: a geometric mean, smoothed', () => {
    const rates = createNodeRates();
    expect(rates.priorScale).toEqual({ prefill: 1, load: 1 });
    // Four times the prior's prefill rate, a load in half its time.
    rates.observe('a', 'm', { promptTokens: 1000, promptEvalMs: 250, loadMs: 1000 }, 0, {
      prefillTps: 1000,
      loadMs: 2000,
    });
    expect(rates.priorScale?.prefill).toBeCloseTo(4, 10);
    expect(rates.priorScale?.load).toBeCloseTo(0.5, 10);
    // A node at its prior moves the scale a tenth of the way, in logs.
    rates.observe('b', 'm', { promptTokens: 1000, promptEvalMs: 1000 }, 0, { prefillTps: 1000, loadMs: 0 });
    expect(rates.priorScale?.prefill).toBeCloseTo(4 ** 0.9, 10);
    expect(rates.priorScale?.load).toBeCloseTo(0.5, 10);
    // Without priors (nothing ranked it), an observation leaves the scale alone.
    rates.observe('c', 'm', { promptTokens: 1000, promptEvalMs: 10 });
    expect(rates.priorScale?.prefill).toBeCloseTo(4 ** 0.9, 10);
  });
});
