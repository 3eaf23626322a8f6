import { describe, expect, it } from '@jest/globals';
import { interpolatedPercentile, summariseSamples } from '../../../../lib/core/benchmarks/sample-percentiles';

describe('interpolatedPercentile', () => {
  it('interpolates linearly between the two closest ranks', () => {
    const sorted = [10, 20, 30, 40];

    expect(interpolatedPercentile(sorted, 0.5)).toBe(25);
    expect(interpolatedPercentile(sorted, 0.9)).toBeCloseTo(37, 10);
    expect(interpolatedPercentile(sorted, 0)).toBe(10);
    expect(interpolatedPercentile(sorted, 1)).toBe(40);
  });

  it('answers the one sample for any quantile, and nothing for none', () => {
    expect(interpolatedPercentile([7], 0.99)).toBe(7);
    expect(interpolatedPercentile([], 0.5)).toBeUndefined();
  });
});

describe('summariseSamples', () => {
  it('sorts the samples and summarises them exactly', () => {
    expect(summariseSamples([100, 1, 50, 2, 3, 4, 5, 6, 7, 8])).toEqual({
      count: 10,
      min: 1,
      mean: 18.6,
      p50: 5.5,
      p90: 55,
      p95: 77.5,
      p99: 95.5,
      max: 100,
    });
  });

  it('is null when there is no sample (unknown, not zero)', () => {
    expect(summariseSamples([])).toBeNull();
  });
});
