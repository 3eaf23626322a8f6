/**
 * Percentiles of a benchmark's raw samples (issue 22 item 6; anchor §6.6: linear interpolation). The
 * runner keeps every sample of a run, so these are exact — no histogram bound applies, unlike the
 * analytics rollups (../analytics/histogram). Pure.
 */

export interface SampleSummary {
  readonly count: number;
  readonly min: number;
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
}

/**
 * The `q` quantile (0–1) of ascending `sorted`, interpolated linearly between the two closest ranks
 * (`(n − 1)·q`, the method of numpy's default and the reference's). Undefined when empty.
 */
export function interpolatedPercentile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const below = Math.floor(rank);
  const lower = sorted[below] as number;
  const upper = sorted[Math.min(below + 1, sorted.length - 1)] as number;
  return lower + (upper - lower) * (rank - below);
}

/** Count, extremes, mean and p50–p99 of `samples`; null when there are none (unknown, not zero). */
export function summariseSamples(samples: readonly number[]): SampleSummary | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => round(interpolatedPercentile(sorted, q) as number);
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    count: sorted.length,
    min: round(sorted[0] as number),
    mean: round(sum / sorted.length),
    p50: at(0.5),
    p90: at(0.9),
    p95: at(0.95),
    p99: at(0.99),
    max: round(sorted[sorted.length - 1] as number),
  };
}

/** Three decimals: sub-millisecond and sub-token digits beyond that are noise in a report. */
function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
