/**
 * Fixed log-bucket histograms (issue 22 item 1): a latency, a time to first token or a token count is
 * counted in the bucket that holds it, and percentiles come from the counts, so a day's p50–p99 is read
 * from one item however many requests it saw. Buckets never move, so two histograms add bucket by bucket
 * (across instances, hours, nodes) with no loss.
 *
 * Bucket 0 holds [0, 1); bucket i ≥ 1 holds [2^((i−1)/8), 2^(i/8)): eight buckets per doubling. A bucket
 * reads as its geometric middle, so a value read back is within `HISTOGRAM_RELATIVE_ERROR` (2^(1/16) − 1,
 * 4.4 %) of every value the bucket holds; the percentile read is the bucket holding the nearest-rank
 * sample, so it is within 4.4 % of that sample (and never above the exact maximum, when one is given).
 * An hour (10^3.6 ms) spans 98 buckets, a million tokens 160. Pure.
 */

/** Buckets per doubling of the value. */
export const BUCKETS_PER_DOUBLING = 8;
/** Largest relative distance between a value and what its bucket reads as. */
export const HISTOGRAM_RELATIVE_ERROR = 2 ** (1 / (2 * BUCKETS_PER_DOUBLING)) - 1;

/** Bucket index → count; only buckets that counted something are present. */
export type Histogram = ReadonlyMap<number, number>;

/** The bucket `value` falls in; negatives and NaN count as 0. */
export function bucketOf(value: number): number {
  if (!(value >= 1)) return 0;
  return Math.floor(Math.log2(value) * BUCKETS_PER_DOUBLING) + 1;
}

/** What bucket `index` reads as: 0 for bucket 0, else its geometric middle. */
export function bucketValue(index: number): number {
  if (index <= 0) return 0;
  return 2 ** ((index - 0.5) / BUCKETS_PER_DOUBLING);
}

/** The smallest value bucket `index` holds (its lower bound); the next bucket's is its upper bound. */
export function bucketLowerBound(index: number): number {
  if (index <= 0) return 0;
  return 2 ** ((index - 1) / BUCKETS_PER_DOUBLING);
}

export function histogramCount(histogram: Histogram): number {
  let count = 0;
  for (const value of histogram.values()) count += value;
  return count;
}

/** Bucket-wise sum. */
export function addHistograms(a: Histogram, b: Histogram): Histogram {
  if (b.size === 0) return a;
  if (a.size === 0) return b;
  const sum = new Map(a);
  for (const [bucket, count] of b) sum.set(bucket, (sum.get(bucket) ?? 0) + count);
  return sum;
}

/**
 * The `q` quantile (0 < q ≤ 1) by nearest rank: the value of the bucket holding the ⌈q·n⌉-th smallest
 * sample, capped at `max` when the exact maximum is known. Undefined for an empty histogram.
 */
export function percentile(histogram: Histogram, q: number, max?: number): number | undefined {
  const total = histogramCount(histogram);
  if (total === 0) return undefined;
  const rank = Math.max(1, Math.ceil(q * total));
  const buckets = [...histogram.keys()].sort((x, y) => x - y);
  let seen = 0;
  for (const bucket of buckets) {
    seen += histogram.get(bucket) ?? 0;
    if (seen >= rank) {
      const value = bucketValue(bucket);
      return max !== undefined && value > max ? max : value;
    }
  }
  return undefined;
}
