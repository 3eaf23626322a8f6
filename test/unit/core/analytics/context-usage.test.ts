import { describe, expect, it } from '@jest/globals';
import {
  allocatedContexts,
  contextUsage,
  nextPowerOfTwo,
  recommendedContext,
} from '../../../../lib/core/analytics/context-usage';
import { type RollupTrace, rollupOf, sumRollups, traceIncrements } from '../../../../lib/core/analytics/rollup';
import type { LoadedModel } from '../../../../lib/core/fleet/node';
import { makeLoadedModel, makeNodeRecord, snapshotOf, T0 } from '../../../helpers/factories';

const trace = (
  promptTokens?: number,
  completionTokens?: number,
  status: RollupTrace['status'] = 'completed',
): RollupTrace => ({
  startedAt: T0,
  style: 'openai-chat' as const,
  status,
  latencyMs: 1000,
  retries: 0,
  ...(promptTokens !== undefined ? { promptTokens } : {}),
  ...(completionTokens !== undefined ? { completionTokens } : {}),
});

/** The rollup the traces add up to, as a table item holding their increments (and maxima) reads back. */
function rolled(traces: readonly RollupTrace[], withMaxima = true) {
  return sumRollups(
    traces.map((entry) => {
      const { counters, maxima } = traceIncrements(entry);
      return rollupOf(withMaxima ? { ...counters, ...maxima } : counters);
    }),
  );
}

describe('nextPowerOfTwo', () => {
  it('is the smallest power of two at or above the value', () => {
    expect([0, 1, 3, 4096, 4096.5, 4650].map(nextPowerOfTwo)).toEqual([1, 1, 4, 4096, 8192, 8192]);
  });
});

describe('recommendedContext', () => {
  it('is the next power of two at or above 1.5 × the larger of p99 and the 24 h maximum', () => {
    expect(recommendedContext(3100, 0, 0)).toBe(8192);
    expect(recommendedContext(3025, 6000, 0)).toBe(16_384);
  });

  it('keeps the headroom whole: 1.5 × 2731 is 4096.5, so 8192 (truncating first would give 4096)', () => {
    expect(recommendedContext(2731, 0, 0)).toBe(8192);
  });

  it('is never below 4096, also with nothing observed', () => {
    expect(recommendedContext(2000, 0, 0)).toBe(4096);
    expect(recommendedContext(0, 0, 0)).toBe(4096);
    expect(recommendedContext(0, 0, null)).toBe(4096);
  });

  it('is capped to the allocated context when one is allocated, not when none is', () => {
    expect(recommendedContext(10_000, 0, 8192)).toBe(8192);
    expect(recommendedContext(10_000, 0, 0)).toBe(16_384);
    expect(recommendedContext(10_000, 0, null)).toBe(16_384);
  });
});

/** A loaded copy whose node did not say its context length. */
function withoutContext({ contextLength: _dropped, ...loaded }: LoadedModel): LoadedModel {
  return loaded;
}

describe('allocatedContexts', () => {
  it("is the largest context of the model's loaded copies on nodes not offline, under its :latest twin too", () => {
    const snapshot = snapshotOf([
      makeNodeRecord({ id: 'a', loaded: [makeLoadedModel({ name: 'llama3:latest', contextLength: 8192 })] }),
      makeNodeRecord({
        id: 'b',
        lastSeenAt: T0 - 20_000,
        loaded: [makeLoadedModel({ name: 'llama3', contextLength: 16_384 })],
      }),
      makeNodeRecord({
        id: 'c',
        lastSeenAt: T0 - 60_000,
        loaded: [makeLoadedModel({ name: 'llama3', contextLength: 131_072 })],
      }),
      makeNodeRecord({ id: 'd', loaded: [withoutContext(makeLoadedModel({ name: 'qwen3:8b' }))] }),
    ]);
    expect(snapshot.nodes.map((node) => node.status)).toEqual(['online', 'degraded', 'offline', 'online']);

    const allocated = allocatedContexts(snapshot.nodes);

    expect(allocated.get('llama3')).toBe(16_384);
    expect(allocated.get('llama3:latest')).toBe(16_384);
    expect(allocated.get('qwen3:8b')).toBeNull();
    expect(allocated.has('mistral:7b')).toBe(false);
  });
});

describe('contextUsage', () => {
  const window = [
    { model: 'llama3:8b', rollup: rolled([trace(1000, 500), trace(2000, 500)]) },
    { model: 'llama3:8b', rollup: rolled([trace(3000, 100), trace(undefined, undefined, 'failed')]) },
    { model: 'qwen3:32b', rollup: rolled([trace(100, 20)]) },
    { model: 'mistral:7b', rollup: rolled([trace(700, 300)]) },
    // Requests, none measured (no prompt tokens): no record, as the reference has none.
    { model: 'flux', rollup: rolled([trace(undefined, undefined), trace(undefined, undefined, 'failed')]) },
  ];
  const last24h = [{ model: 'llama3:8b', rollup: rolled([trace(3000, 100)]) }];
  const allocated = new Map([
    ['llama3:8b', 8192],
    ['qwen3:32b', 32_768],
  ]);

  it('gives the record of spec §2 per model, most requests first, from the buckets and exact sums and maxima', () => {
    const models = contextUsage({ window, last24h, allocated });

    expect(models).toEqual([
      {
        model: 'llama3:8b',
        allocated_ctx: 8192,
        request_count: 4,
        measured_requests: 3,
        // (1000 + 2000 + 3000 + 0) / 4 requests; the buckets of 2000 and 3000 read 1961 and 3025, capped at the max.
        prompt_tokens: { avg: 1500, p50: 1961, p75: 3000, p95: 3000, p99: 3000, max: 3000 },
        total_tokens: { p95: 3025, p99: 3025, max: 3100, max_24h: 3100 },
        utilization_pct: 36.9,
        recommended_ctx: 8192,
        savings_pct: 0,
      },
      {
        model: 'mistral:7b',
        allocated_ctx: 0,
        request_count: 1,
        measured_requests: 1,
        // 700 and 1000 read as their buckets' middles, 693 and 981: below the maxima, so not capped.
        prompt_tokens: { avg: 700, p50: 693, p75: 693, p95: 693, p99: 693, max: 700 },
        total_tokens: { p95: 981, p99: 981, max: 1000, max_24h: null },
        utilization_pct: 0,
        recommended_ctx: 4096,
        savings_pct: 0,
      },
      {
        model: 'qwen3:32b',
        allocated_ctx: 32_768,
        request_count: 1,
        measured_requests: 1,
        prompt_tokens: { avg: 100, p50: 100, p75: 100, p95: 100, p99: 100, max: 100 },
        total_tokens: { p95: 120, p99: 120, max: 120, max_24h: null },
        utilization_pct: 0.4,
        recommended_ctx: 4096,
        savings_pct: 87.5,
      },
    ]);
  });

  it('says null for a maximum the rollups do not hold, and reads the percentiles uncapped', () => {
    const [record] = contextUsage({
      window: [{ model: 'llama3:8b', rollup: rolled([trace(3000, 100)], false) }],
      last24h: [{ model: 'llama3:8b', rollup: rolled([trace(3000, 100)], false) }],
      allocated: new Map([['llama3:8b', null]]),
    });

    expect(record).toMatchObject({
      allocated_ctx: null,
      prompt_tokens: { p99: 3025, max: null },
      total_tokens: { p99: 3025, max: null, max_24h: null },
      utilization_pct: null,
      recommended_ctx: 8192,
      savings_pct: null,
    });
  });

  it('is empty with no rollups', () => {
    expect(contextUsage({ window: [], last24h: [], allocated: new Map() })).toEqual([]);
  });
});
