/**
 * The figures the analytics views read off a rollup (issue 22 item 2): averages over the requests that
 * have the value, percentiles from the log-bucket histograms (./histogram, within 4.4 % of a sample),
 * the range every counted value lies in, decode rate. Unknown is `null`, never a made-up zero. Pure.
 */
import { bucketLowerBound, HISTOGRAM_RELATIVE_ERROR, type Histogram, percentile } from './histogram';
import type { Rollup } from './rollup';

/** A rollup with its period and scope: what lib/services/analytics/rollup-reader `RollupRow` holds. */
export interface ScopedRollup {
  /** `2026-11-26` for a day, `2026-11-26T13` for an hour, `all` for all time. */
  readonly period: string;
  /** Epoch ms the period starts (UTC). */
  readonly startMs: number;
  readonly nodeId?: string;
  readonly model?: string;
  readonly rollup: Rollup;
}

/** What every percentile a view shows may be off by, in percent (one decimal). */
export const PERCENTILE_ERROR_PCT = Math.round(HISTOGRAM_RELATIVE_ERROR * 1000) / 10;

/** One decimal: averages and rates are exact to that. */
export function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/** `sum / count` to one decimal; null when nothing was counted. */
export function average(sum: number, count: number): number | null {
  return count > 0 ? round1(sum / count) : null;
}

/** The `q` quantile of a histogram to one decimal (±4.4 %), capped at an exact maximum when known; null when empty. */
export function quantile(histogram: Histogram, q: number, max?: number): number | null {
  const value = percentile(histogram, q, max);
  return value === undefined ? null : round1(value);
}

export interface Percentiles {
  readonly p50: number | null;
  readonly p75: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
}

export function percentiles(histogram: Histogram, max?: number): Percentiles {
  return {
    p50: quantile(histogram, 0.5, max),
    p75: quantile(histogram, 0.75, max),
    p95: quantile(histogram, 0.95, max),
    p99: quantile(histogram, 0.99, max),
  };
}

/**
 * Exact bounds every counted value lies in: the lowest non-empty bucket's lower bound and the highest
 * one's upper bound (the exact minimum and maximum are not kept). Null when empty.
 */
export function histogramRange(histogram: Histogram): { readonly from: number; readonly below: number } | null {
  if (histogram.size === 0) return null;
  const buckets = [...histogram.keys()];
  const low = Math.min(...buckets);
  const high = Math.max(...buckets);
  return { from: round1(bucketLowerBound(low)), below: round1(bucketLowerBound(high + 1)) };
}

/** Requests that did not complete: failed, client disconnected or incomplete (retried attempts are not requests). */
export function errorCount(rollup: Rollup): number {
  return rollup.counters.requests - rollup.counters.completed;
}

/** Decoded tokens per second after the first token; null when no request measured it. */
export function tokensPerSecond(rollup: Rollup): number | null {
  const { decode_ms: ms, decode_tokens: tokens } = rollup.counters;
  return ms > 0 ? round1((tokens * 1000) / ms) : null;
}

/** Epoch seconds from epoch ms (the reference's timestamps are seconds). */
export function epochSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** Rows grouped by a key, each group's rows in input order. */
export function groupBy<T>(rows: Iterable<T>, key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const name = key(row);
    const group = groups.get(name);
    if (group === undefined) groups.set(name, [row]);
    else group.push(row);
  }
  return groups;
}
