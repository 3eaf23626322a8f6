/** Percentiles and medians for the routing bench (nearest rank: a reported value is one that occurred);
 * medians are ../stats'. */

/** The `p`-th percentile (0–100) of `values` by nearest rank; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** `points` + 1 quantiles of `values` from 0 to 100 %: a CDF small enough to keep in the results file. */
export function quantiles(values: readonly number[], points = 100): number[] {
  if (values.length === 0) return [];
  return Array.from({ length: points + 1 }, (_, index) => percentile(values, (index * 100) / points));
}
