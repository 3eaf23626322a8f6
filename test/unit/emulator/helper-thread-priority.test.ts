import { describe, expect, it } from '@jest/globals';
import { helperThreads } from '../../../emulator/helper-thread-priority';

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
