import { describe, expect, it } from '@jest/globals';
import { cpuList } from '../../../bench/pinning';

describe('cpuList', () => {
  it('reads the CPU lists taskset prints: single CPUs, ranges and both', () => {
    expect(cpuList('0,1')).toEqual([0, 1]);
    expect(cpuList('0-3')).toEqual([0, 1, 2, 3]);
    expect(cpuList('0-1,4, 6-7')).toEqual([0, 1, 4, 6, 7]);
    expect(cpuList('2')).toEqual([2]);
    expect(cpuList('')).toEqual([]);
  });
});
