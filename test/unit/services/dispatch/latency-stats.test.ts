import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import { createLatencyStats } from '../../../../lib/services/dispatch/latency-stats';

describe('createLatencyStats', () => {
  it('knows nothing before the first observation', () => {
    const stats = createLatencyStats();
    expect(stats.p75DurationMs('gpu1', 'm')).toBeUndefined();
    expect(stats.p75FirstByteMs('gpu1', 'm')).toBeUndefined();
  });

  it('keeps the nearest-rank p75 of durations and of first bytes per node:model', () => {
    const stats = createLatencyStats();
    for (const ms of [400, 100, 300, 200]) stats.recordDuration('gpu1', 'm', ms);
    stats.recordFirstByte('gpu1', 'm', 50);
    stats.recordDuration('gpu2', 'm', 9000);
    expect(stats.p75DurationMs('gpu1', 'm')).toBe(300);
    expect(stats.p75FirstByteMs('gpu1', 'm')).toBe(50);
    expect(stats.p75DurationMs('gpu2', 'm')).toBe(9000);
    expect(stats.p75DurationMs('gpu1', 'other')).toBeUndefined();
  });

  it('rolls: only the last `window` observations count', () => {
    const stats = createLatencyStats({ window: 4 });
    for (const ms of [10_000, 10_000, 10_000, 10_000, 100, 100, 100]) stats.recordDuration('gpu1', 'm', ms);
    // Window: 10 000, 100, 100, 100.
    expect(stats.p75DurationMs('gpu1', 'm')).toBe(100);
    stats.recordDuration('gpu1', 'm', 100);
    expect(stats.p75DurationMs('gpu1', 'm')).toBe(100);
  });

  it('always reports the nearest-rank p75 of the last `window` observations, repeats and ties included', () => {
    // biome-ignore lint/nursery/noFloatingPromises: fc.assert of a synchronous property returns void, not a promise.
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 60 }),
        (window, observations) => {
          const stats = createLatencyStats({ window });
          observations.forEach((ms, index) => {
            stats.recordDuration('gpu1', 'm', ms);
            const last = observations.slice(Math.max(0, index + 1 - window), index + 1).sort((a, b) => a - b);
            expect(stats.p75DurationMs('gpu1', 'm')).toBe(last[Math.ceil(last.length * 0.75) - 1]);
          });
        },
      ),
    );
  });

  it('hands out one live window per node:model, from its first observation on', () => {
    const stats = createLatencyStats();
    expect(stats.durationWindow('gpu1', 'm')).toBeUndefined();
    stats.recordDuration('gpu1', 'm', 100);
    const window = stats.durationWindow('gpu1', 'm');
    stats.recordDuration('gpu1', 'm', 300);
    stats.recordDuration('gpu1', 'm', 500);

    expect(stats.durationWindow('gpu1', 'm')).toBe(window);
    expect(window?.p75).toBe(stats.p75DurationMs('gpu1', 'm'));
    expect(window?.p75).toBe(500);
    expect(stats.durationWindow('gpu1', 'other')).toBeUndefined();
  });

  it('smooths the wait per place in line on the live window, and ignores waits that are not', () => {
    const stats = createLatencyStats();
    stats.recordDuration('a', 'm', 4000);
    const window = stats.durationWindow('a', 'm');
    expect(window?.waitPerPlaceMs).toBeUndefined();
    stats.recordQueueWait('a', 'm', 3000, 3);
    expect(window?.waitPerPlaceMs).toBe(1000);
    stats.recordQueueWait('a', 'm', 4000, 1);
    expect(window?.waitPerPlaceMs).toBeCloseTo(1000 + 0.3 * 3000, 10);
    stats.recordQueueWait('a', 'm', Number.NaN, 1);
    stats.recordQueueWait('a', 'm', 500, 0);
    expect(window?.waitPerPlaceMs).toBeCloseTo(1900, 10);
  });

  it('ignores observations that are not durations', () => {
    const stats = createLatencyStats();
    stats.recordDuration('gpu1', 'm', Number.NaN);
    stats.recordDuration('gpu1', 'm', -5);
    stats.recordDuration('gpu1', 'm', Number.POSITIVE_INFINITY);
    expect(stats.p75DurationMs('gpu1', 'm')).toBeUndefined();
  });

  it('lists every node:model it has seen', () => {
    const stats = createLatencyStats();
    stats.recordDuration('gpu1', 'm', 100);
    stats.recordFirstByte('gpu2', 'm', 20);
    expect(stats.entries()).toEqual([
      { nodeId: 'gpu1', model: 'm', samples: 1, p75DurationMs: 100, p75FirstByteMs: undefined },
      { nodeId: 'gpu2', model: 'm', samples: 0, p75DurationMs: undefined, p75FirstByteMs: 20 },
    ]);
  });
});
