import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import {
  descendantsOf,
  parentInStat,
  pidsInChildren,
  processTree,
  residentKb,
  statusKb,
} from '../../../bench/process-tree';

describe('the /proc parsers', () => {
  it('read the parent from a stat line, whatever the command name holds', () => {
    expect(parentInStat('26520 (cat) R 26513 26513 25599 0 -1 4194304')).toBe(26513);
    expect(parentInStat('41 (node ) (x) S 7 41 41 0 -1')).toBe(7);
    expect(parentInStat('')).toBeUndefined();
  });

  it('read a children file', () => {
    expect(pidsInChildren('12 345 ')).toEqual([12, 345]);
    expect(pidsInChildren('')).toEqual([]);
  });

  it('read resident memory and its peak from a status file', () => {
    const status = 'Name:\tnode\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t7\n';
    expect(statusKb(status)).toBe(102400);
    expect(statusKb(status, 'VmHWM')).toBe(204800);
    expect(statusKb('Name:\tkthreadd\n')).toBeUndefined();
  });
});

describe('descendantsOf', () => {
  it('finds children and grandchildren, parents first, and nothing outside the tree', () => {
    const parents = new Map([
      [10, 1],
      [20, 10],
      [21, 10],
      [30, 21],
      [40, 1],
      [50, 40],
    ]);
    expect(descendantsOf(10, parents)).toEqual([10, 20, 21, 30]);
    expect(descendantsOf(30, parents)).toEqual([30]);
  });
});

describe('processTree', () => {
  it('finds a running child and its child, each with resident memory', async () => {
    const child = spawn(
      process.execPath,
      [
        '-e',
        "require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' }); setInterval(() => {}, 1000)",
      ],
      { stdio: 'ignore', detached: false },
    );
    await once(child, 'spawn');
    try {
      let tree: number[] = [];
      // A grandchild just forked holds a few kB until its exec loads Node: wait for both to run.
      const running = () => tree.length === 2 && tree.every((pid) => (residentKb(pid) ?? 0) > 1000);
      for (let attempt = 0; attempt < 100 && !running(); attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        tree = processTree(child.pid ?? 0);
      }
      expect(tree).toHaveLength(2);
      expect(tree[0]).toBe(child.pid);
      expect(processTree(process.pid)).toEqual(expect.arrayContaining(tree));
      for (const pid of tree) expect(residentKb(pid)).toBeGreaterThan(1000);
    } finally {
      for (const pid of processTree(child.pid ?? 0).reverse()) process.kill(pid, 'SIGKILL');
      await once(child, 'exit').catch(() => undefined);
    }
  });
});
