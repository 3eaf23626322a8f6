import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { HELPER_NICE, helperThreads, lowerHelperThreadPriority } from '../../../emulator/helper-thread-priority';

/** A thread's nice value, field 19 of /proc/self/task/<tid>/stat (after the name in parentheses). */
function niceOf(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

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
