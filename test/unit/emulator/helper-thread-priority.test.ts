import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { HELPER_NICE, helperThreads, lowerHelperThreadPriority } from '../../../emulator/helper-thread-priority';

/** A thread's nice value, field 19 of /proc/self/task/<tid>/stat (after the name in parentheses). */
function niceOf(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe('helperThreads', () => {
  it("picks every thread but the main one that bears the process's name", () => {
    const threads = [
      { tid: 10, name: 'node' },
      { tid: 11, name: 'node' },
      { tid: 12, name: 'node' },
      { tid: 13, name: 'fleet-table' },
    ];
    expect(helperThreads(10, threads, 'node')).toEqual([11, 12]);
  });

  it('knows the helpers by the name the process started with when the main thread was renamed', () => {
    const threads = [
      { tid: 10, name: 'fleet-router' },
      { tid: 11, name: 'node' },
      { tid: 13, name: 'fleet-table' },
    ];
    expect(helperThreads(10, threads, 'node')).toEqual([11]);
  });

  it('compares names as Linux keeps them, cut to 15 bytes', () => {
    const threads = [
      { tid: 10, name: 'node-20.19.1-li' },
      { tid: 11, name: 'node-20.19.1-li' },
    ];
    expect(helperThreads(10, threads, 'node-20.19.1-linux-x64')).toEqual([11]);
  });

  it('finds none when the process has no other thread of its name', () => {
    expect(helperThreads(10, [{ tid: 10, name: 'node' }], 'node')).toEqual([]);
    expect(helperThreads(10, [], 'node')).toEqual([]);
  });
});

describe.each(process.platform === 'linux' ? ['linux'] : [])('lowerHelperThreadPriority (%s)', () => {
  it("lowers V8's helper threads to the lowest priority and leaves the main thread's as it was", () => {
    const mainNice = niceOf(process.pid);
    const threads = readdirSync('/proc/self/task').map((tid) => ({
      tid: Number(tid),
      name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(),
    }));
    const helpers = helperThreads(process.pid, threads, basename(process.execPath));

    const lowered = lowerHelperThreadPriority();

    expect(helpers.length).toBeGreaterThan(0);
    expect(lowered).toBeGreaterThanOrEqual(helpers.length);
    expect(helpers.map(niceOf)).toEqual(helpers.map(() => HELPER_NICE));
    expect(niceOf(process.pid)).toBe(mainNice);
  });
});
