import { describe, expect, it } from '@jest/globals';
import {
  busyTicksInStat,
  cpusInStat,
  othersShare,
  processTicksInStat,
  watchHostShare,
} from '../../../bench/host-share';

const STAT = `cpu  1124394 9734 258140 1658389 2704 0 100956 7 0 0
cpu0 621598 4715 126304 777287 493 0 54296 0 0 0
cpu1 502795 5018 131835 881101 2210 0 46660 7 0 0
intr 1 2 3
`;

describe('the /proc/stat readers', () => {
  it('count busy ticks (user, nice, system, irq, softirq, steal), not idle or iowait', () => {
    expect(busyTicksInStat(STAT)).toBe(1124394 + 9734 + 258140 + 0 + 100956 + 7);
    expect(busyTicksInStat('')).toBe(0);
  });

  it('count the CPUs', () => {
    expect(cpusInStat(STAT)).toBe(2);
  });

  it("read a process's own and its reaped children's ticks, whatever its name holds", () => {
    const stat = '41 (node ) (x) S 7 41 41 0 -1 4194304 101 0 0 0 120 30 5 2 20 0 1 0';
    expect(processTicksInStat(stat)).toBe(120 + 30 + 5 + 2);
  });
});

describe('othersShare', () => {
  it('is the busy time that was not the bench’s, as a share of all the CPU time there was', () => {
    // Two CPUs for 10 s at 100 ticks a second: 2,000 ticks; busy 1,500, of which the bench's 1,300.
    expect(othersShare(1500, 1300, 1000, 2)).toBeCloseTo(0.1);
    expect(othersShare(1300, 1300, 1000, 2)).toBe(0);
    // Ticks are counted apart and rounded: never below nothing or above everything.
    expect(othersShare(1290, 1300, 1000, 2)).toBe(0);
    expect(othersShare(5000, 0, 1000, 2)).toBe(1);
    expect(othersShare(10, 0, 0, 2)).toBe(0);
  });
});

describe('watchHostShare', () => {
  it('reads a share between nothing and everything', async () => {
    const host = watchHostShare();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const share = host.othersSoFar();
    expect(share).toBeGreaterThanOrEqual(0);
    expect(share).toBeLessThanOrEqual(1);
  });
});
