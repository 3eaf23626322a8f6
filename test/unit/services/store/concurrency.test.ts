import { describe, expect, it } from '@jest/globals';
import { backoffDelay } from '../../../../lib/services/store/backoff';
import { chunk, settleLimited } from '../../../../lib/services/store/concurrency';

describe('chunk', () => {
  it('splits into groups of the size, the last one shorter', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunk([], 25)).toEqual([]);
  });
});

describe('settleLimited', () => {
  it('never runs more than the limit at once and keeps every outcome in order', async () => {
    let running = 0;
    let peak = 0;
    const task = (value: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      if (value === 3) throw new Error('three');
      return value;
    };

    const results = await settleLimited([1, 2, 3, 4, 5, 6].map(task), 2);

    expect(peak).toBe(2);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
  });
});

describe('backoffDelay', () => {
  it('doubles per attempt within ±25 % and stops at the cap', () => {
    for (let index = 0; index < 50; index++) {
      expect(backoffDelay(1, 100, 5000)).toBeGreaterThanOrEqual(75);
      expect(backoffDelay(1, 100, 5000)).toBeLessThanOrEqual(125);
      expect(backoffDelay(3, 100, 5000)).toBeGreaterThanOrEqual(300);
      expect(backoffDelay(3, 100, 5000)).toBeLessThanOrEqual(500);
      expect(backoffDelay(20, 100, 5000)).toBeLessThanOrEqual(6250);
    }
  });
});
