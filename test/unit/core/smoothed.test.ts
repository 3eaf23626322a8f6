import { describe, expect, it } from '@jest/globals';
import { smoothed } from '../../../lib/core/smoothed';

describe('smoothed', () => {
  it('takes the first value as it is, then moves `weight` of the way to each new one', () => {
    expect(smoothed(undefined, 10, 0.3)).toBe(10);
    expect(smoothed(10, 20, 0.3)).toBeCloseTo(13, 10);
    expect(smoothed(10, 20, 1)).toBe(20);
    expect(smoothed(10, 20, 0)).toBe(10);
  });
});
