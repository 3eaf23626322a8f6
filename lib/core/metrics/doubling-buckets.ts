/**
 * A rollup histogram (lib/core/analytics/histogram: eight buckets per doubling) as Prometheus's cumulative
 * `le` buckets, one per doubling, with no loss: bucket i ≥ 1 holds [2^((i−1)/8), 2^(i/8)), so the buckets
 * up to 8k hold exactly the values below 2^k. The rollups count whole milliseconds (latency and time to
 * first token are rounded before they are counted), and for whole numbers "below 2^k" is "at most
 * 2^k − 1": the bounds are 0, 1, 3, 7, … 2^k − 1 ms, each count exact under the format's `≤ le`. The same
 * bounds for every series, so `sum by (le)` across nodes and models adds up. Pure.
 */
import { BUCKETS_PER_DOUBLING, type Histogram, histogramCount } from '../analytics/histogram';

/** Doublings shown: 2^20 − 1 ms (17.5 min) is past the Lambda limit of 15 min; anything above is `+Inf` only. */
export const MAX_DOUBLING = 20;

export interface CumulativeBucket {
  /** Upper bound in the histogram's unit (ms); `Infinity` for the last. */
  readonly le: number;
  /** Values at most `le`. */
  readonly count: number;
}

/** `le` = 2^k − 1 for k = 0…MAX_DOUBLING, then +Inf (= the histogram's count). */
export function doublingBuckets(histogram: Histogram): CumulativeBucket[] {
  const byDoubling = new Array<number>(MAX_DOUBLING + 1).fill(0);
  for (const [bucket, count] of histogram) {
    // Bucket 0 ([0, 1)) is below 2^0; bucket i ≥ 1 is below 2^k from k = ⌈i / 8⌉ on.
    const doubling = Math.ceil(Math.max(0, bucket) / BUCKETS_PER_DOUBLING);
    if (doubling <= MAX_DOUBLING) byDoubling[doubling] = (byDoubling[doubling] ?? 0) + count;
  }
  const buckets: CumulativeBucket[] = [];
  let cumulative = 0;
  for (let k = 0; k <= MAX_DOUBLING; k += 1) {
    cumulative += byDoubling[k] ?? 0;
    buckets.push({ le: 2 ** k - 1, count: cumulative });
  }
  buckets.push({ le: Number.POSITIVE_INFINITY, count: histogramCount(histogram) });
  return buckets;
}
