import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  addHistograms,
  BUCKETS_PER_DOUBLING,
  bucketLowerBound,
  bucketOf,
  bucketValue,
  HISTOGRAM_RELATIVE_ERROR,
  histogramCount,
  percentile,
} from '../../../../lib/core/analytics/histogram';

/** Floating-point slack on top of the stated bound. */
const SLACK = 1e-9;

function histogramOf(values: readonly number[]): Map<number, number> {
  const histogram = new Map<number, number>();
  for (const value of values) histogram.set(bucketOf(value), (histogram.get(bucketOf(value)) ?? 0) + 1);
  return histogram;
}

describe('bucketOf', () => {
  it('puts everything below 1, negatives and NaN in bucket 0', () => {
    expect([0, 0.999, -5, Number.NaN].map(bucketOf)).toEqual([0, 0, 0, 0]);
  });

  it('starts a bucket at every eighth of a doubling, a power of two opening its bucket', () => {
    expect(bucketOf(1)).toBe(1);
    for (let power = 0; power <= 40; power++) {
      expect(bucketOf(2 ** power)).toBe(power * BUCKETS_PER_DOUBLING + 1);
      expect(bucketOf(2 ** power * 0.999_999)).toBe(power * BUCKETS_PER_DOUBLING);
    }
    expect(bucketOf(2 ** (1 / 8) * 1.000_001)).toBe(2);
    expect(bucketOf(2 ** (1 / 8) * 0.999_999)).toBe(1);
  });

  it('finds the bucket whose bounds hold the value', () => {
    fc.assert(
      fc.property(fc.double({ min: 1, max: 1e12, noNaN: true }), (value) => {
        const bucket = bucketOf(value);
        expect(bucketLowerBound(bucket)).toBeLessThanOrEqual(value * (1 + SLACK));
        expect(bucketLowerBound(bucket + 1)).toBeGreaterThan(value * (1 - SLACK));
      }),
    );
  });

  it('reads every value back within HISTOGRAM_RELATIVE_ERROR (4.4 %)', () => {
    expect(HISTOGRAM_RELATIVE_ERROR).toBeCloseTo(0.0443, 4);
    fc.assert(
      fc.property(fc.double({ min: 1, max: 1e12, noNaN: true }), (value) => {
        expect(Math.abs(bucketValue(bucketOf(value)) - value) / value).toBeLessThanOrEqual(
          HISTOGRAM_RELATIVE_ERROR + SLACK,
        );
      }),
    );
  });
});

describe('percentile', () => {
  it('is within HISTOGRAM_RELATIVE_ERROR of the nearest-rank sample', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000_000 }), { minLength: 1, maxLength: 300 }),
        fc.double({ min: 0.001, max: 1, noNaN: true }),
        (values, q) => {
          const sorted = [...values].sort((a, b) => a - b);
          const sample = sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] as number;

          const read = percentile(histogramOf(values), q) as number;

          // A sample of 0 is read exactly (bucket 0 reads as 0).
          expect(Math.abs(read - sample)).toBeLessThanOrEqual(sample * (HISTOGRAM_RELATIVE_ERROR + SLACK));
        },
      ),
    );
  });

  it('never reads above the exact maximum when it is given', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 100 }), (values) => {
        const max = Math.max(...values);
        expect(percentile(histogramOf(values), 1, max)).toBeLessThanOrEqual(max);
      }),
    );
  });

  it('reads nothing from an empty histogram', () => {
    expect(percentile(new Map(), 0.5)).toBeUndefined();
  });

  it('takes p50 and p99 of a known set by nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, index) => (index < 99 ? 100 : 10_000));
    const histogram = histogramOf(values);

    expect(percentile(histogram, 0.5)).toBe(bucketValue(bucketOf(100)));
    expect(percentile(histogram, 0.99)).toBe(bucketValue(bucketOf(100)));
    expect(percentile(histogram, 1)).toBe(bucketValue(bucketOf(10_000)));
  });
});

describe('addHistograms', () => {
  it('adds bucket by bucket, so summed histograms read as one built from every value', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100_000 })),
        fc.array(fc.integer({ min: 0, max: 100_000 })),
        (a, b) => {
          const sum = addHistograms(histogramOf(a), histogramOf(b));
          expect(new Map([...sum].sort(([x], [y]) => x - y))).toEqual(
            new Map([...histogramOf([...a, ...b])].sort(([x], [y]) => x - y)),
          );
          expect(histogramCount(sum)).toBe(a.length + b.length);
        },
      ),
    );
  });
});
