import { describe, expect, it } from '@jest/globals';
import { spacedSchedule } from '../../../bench/spaced-schedule';

describe('spacedSchedule', () => {
  const schedule = spacedSchedule(['proxy', 'router'] as const, { perTarget: 200, seed: 7 });

  it('gives each target its count, half of it streaming, after uncounted warm-up turns', () => {
    for (const target of ['proxy', 'router']) {
      const counted = schedule.filter((send) => send.target === target && send.counted);
      expect(counted).toHaveLength(200);
      expect(counted.filter((send) => send.streaming)).toHaveLength(100);
    }
    expect(schedule.slice(0, 8).every((send) => !send.counted)).toBe(true);
    expect(schedule.slice(8).every((send) => send.counted)).toBe(true);
  });

  it('sends to the targets in turns, each target about a second after its last, within ±0.5 s', () => {
    expect(schedule.map((send) => send.target).join(',')).toBe(Array(204).fill('proxy,router').join(','));
    for (const target of ['proxy', 'router']) {
      const times = schedule.filter((send) => send.target === target).map((send) => send.atMs);
      const gaps = times.slice(1).map((at, index) => at - (times[index] ?? 0));
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(500);
      expect(Math.max(...gaps)).toBeLessThanOrEqual(1500);
      const mean = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
      expect(mean).toBeGreaterThan(950);
      expect(mean).toBeLessThan(1050);
      // Drawn, not fixed: the gaps differ.
      expect(new Set(gaps.map(Math.round)).size).toBeGreaterThan(100);
    }
  });

  it('is the same for the same seed and differs for another', () => {
    const again = spacedSchedule(['proxy', 'router'] as const, { perTarget: 200, seed: 7 });
    const other = spacedSchedule(['proxy', 'router'] as const, { perTarget: 200, seed: 8 });
    expect(again).toEqual(schedule);
    expect(other.map((send) => send.atMs)).not.toEqual(schedule.map((send) => send.atMs));
  });
});
