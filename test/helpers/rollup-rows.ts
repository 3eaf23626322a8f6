/**
 * Rollup rows for the analytics view tests, built from traces the way the recorder sums them
 * (`traceIncrements` read back with `rollupOf`), so a test states traces and exact expected figures.
 */
import { type Rollup, type RollupTrace, rollupOf, sumRollups, traceIncrements } from '../../lib/core/analytics/rollup';
import type { ScopedRollup } from '../../lib/core/analytics/rollup-figures';

/** Overrides; an `undefined` one removes the field (a request without a first token, say). */
export type TraceOverrides = { readonly [K in keyof RollupTrace]?: RollupTrace[K] | undefined };

/** A completed chat request: 10 prompt tokens, 5 completion tokens, first token after 50 ms. */
export function rollupTrace(overrides: TraceOverrides = {}): RollupTrace {
  const optional = <K extends keyof RollupTrace>(name: K, fallback?: RollupTrace[K]): Partial<Pick<RollupTrace, K>> => {
    const value = name in overrides ? overrides[name] : fallback;
    return value === undefined ? {} : ({ [name]: value } as Pick<RollupTrace, K>);
  };
  return {
    startedAt: overrides.startedAt ?? Date.UTC(2026, 10, 20, 10),
    style: overrides.style ?? 'openai-chat',
    status: overrides.status ?? 'completed',
    latencyMs: overrides.latencyMs ?? 100,
    retries: overrides.retries ?? 0,
    ...optional('timeToFirstTokenMs', 50),
    ...optional('promptTokens', 10),
    ...optional('completionTokens', 5),
    ...optional('fallbackModel'),
    ...optional('cachedTokens'),
    ...optional('loadMs'),
    ...optional('promptEvalMs'),
    ...optional('evalMs'),
    ...optional('promptEstimateTokens'),
  };
}

/** What these traces add up to in one rollup item. */
export function rollupOfTraces(traces: readonly RollupTrace[], byStyle = false): Rollup {
  return sumRollups(
    traces.map((trace) => {
      const { counters, maxima } = traceIncrements(trace, { byStyle });
      return rollupOf({ ...counters, ...maxima });
    }),
  );
}

/** A day × node × model row of these traces (`day` as `2026-11-20`). */
export function dayRow(day: string, nodeId: string, model: string, traces: readonly RollupTrace[]): ScopedRollup {
  return { period: day, startMs: Date.parse(`${day}T00:00:00Z`), nodeId, model, rollup: rollupOfTraces(traces) };
}

/** A fleet hour row (`hour` epoch ms). */
export function hourRow(hour: number, traces: readonly RollupTrace[]): ScopedRollup {
  return {
    period: new Date(hour).toISOString().slice(0, 13),
    startMs: hour,
    rollup: rollupOfTraces(traces, true),
  };
}
