import { describe, expect, it } from '@jest/globals';
import { planWorkload, type WorkloadSpec } from '../../../../bench/routing/workload';

/** Growing prompts a second apart, so every conversation qualifies to go on. */
const trace = Array.from({ length: 40 }, (_, index) => ({
  at: index,
  promptTokens: 200 + index * 400,
  outputTokens: 20,
}));
const spec: WorkloadSpec = {
  modelMix: { m: 1 },
  continueShare: 0.6,
  minTurnGapSeconds: 0,
  contextTokens: 100_000,
};

describe('planWorkload', () => {
  it('plans the same requests from the same seed, and others from another', () => {
    expect(planWorkload(trace, spec, 7)).toEqual(planWorkload(trace, spec, 7));
    expect(planWorkload(trace, spec, 7)).not.toEqual(planWorkload(trace, spec, 8));
  });

  it('continues the conversation whose last turn came latest when asked to, as an agent loop does', () => {
    const recent = planWorkload(trace, { ...spec, continuePick: 'recent' }, 7);
    const uniform = planWorkload(trace, spec, 7);
    // The same requests continue or start anew under both picks; only which conversation goes on differs.
    expect(recent.map((request) => request.turn > 1)).toEqual(uniform.map((request) => request.turn > 1));
    for (const [index, request] of recent.entries()) {
      if (request.turn === 1 || index === 0) continue;
      expect(request.conversation).toBe(recent[index - 1]?.conversation);
    }
    const longest = (plan: typeof recent) => Math.max(...plan.map((request) => request.turn));
    expect(longest(recent)).toBeGreaterThan(longest(uniform));
  });

  it('continues the conversation with the longest history that fits when asked to, so each turn adds least', () => {
    // Prompts that rise and fall, so the conversation with the longest history is not the latest one.
    const mixed = Array.from({ length: 60 }, (_, index) => ({
      at: index,
      promptTokens: 300 + ((index * 7919) % 23) * 300,
      outputTokens: 20,
    }));
    const added = (plan: ReturnType<typeof planWorkload>) => {
      const last = new Map<number, number>();
      let total = 0;
      for (const request of plan) {
        const before = last.get(request.conversation);
        if (before !== undefined) total += request.promptTokens - before;
        last.set(request.conversation, request.promptTokens + Math.ceil(request.outputTokens * 1.75));
      }
      return total;
    };
    const closest = planWorkload(mixed, { ...spec, continuePick: 'closest' }, 7);
    const uniform = planWorkload(mixed, spec, 7);
    const recent = planWorkload(mixed, { ...spec, continuePick: 'recent' }, 7);
    expect(closest.filter((request) => request.turn > 1).length).toBeGreaterThan(10);
    expect(added(closest)).toBeLessThan(added(uniform));
    expect(added(closest)).toBeLessThan(added(recent));
  });
});
