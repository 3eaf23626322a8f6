import { describe, expect, it } from '@jest/globals';
import { createRssWindow, memoryVerdict, summarizeRss } from '../../../bench/rss-window';

describe('summarizeRss', () => {
  it("adds up each process's own peak, which is never below the largest total of one sample", () => {
    // The router peaks in the first sample, its table in the second: no sample holds both peaks.
    const samples = [
      new Map([
        [100, 130 * 1024],
        [200, 40 * 1024],
      ]),
      new Map([
        [100, 110 * 1024],
        [200, 70 * 1024],
        [300, 5 * 1024],
      ]),
    ];
    const peaks = summarizeRss(
      samples,
      new Map([
        [100, 'emulator/main.js'],
        [200, 'emulator/table.js'],
      ]),
    );
    expect(peaks.processes).toEqual([
      { pid: 100, label: 'emulator/main.js', peakMb: 130 },
      { pid: 200, label: 'emulator/table.js', peakMb: 70 },
      { pid: 300, label: 'pid 300', peakMb: 5 },
    ]);
    expect(peaks.sumOfPeaksMb).toBe(205);
    expect(peaks.peakOfSumMb).toBe(185);
    expect(peaks.samples).toBe(2);
  });

  it('fails the budget over 170 MB, and when nothing was sampled', () => {
    const at = (mb: number) => summarizeRss([new Map([[1, mb * 1024]])], new Map());
    expect(memoryVerdict('the runs', at(170)).ok).toBe(true);
    expect(memoryVerdict('the runs', at(170.5)).ok).toBe(false);
    expect(memoryVerdict('the runs', summarizeRss([], new Map())).ok).toBe(false);
  });
});

describe('createRssWindow', () => {
  it('samples this process only while the work runs, its samples adding up over calls', async () => {
    const window = createRssWindow(process.pid);
    expect(window.peaks().samples).toBe(0);
    // The work lasts until the timer has sampled twice besides the sample taken at its start.
    await window.during(async () => {
      while (window.peaks().samples < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    });
    const first = window.peaks().samples;
    expect(first).toBeGreaterThanOrEqual(4);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(window.peaks().samples).toBe(first);
    await window.during(async () => undefined);
    const peaks = window.peaks();
    expect(peaks.samples).toBe(first + 2);
    expect(peaks.processes[0]?.pid).toBe(process.pid);
    expect(peaks.sumOfPeaksMb).toBeGreaterThan(10);
  });
});
