import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  type KeptAwake,
  keepAwake,
  probeWakeUp,
  SPINNER,
  schedulingPolicy,
  startEchoServer,
} from '../../../bench/keep-awake';
import { cpuList } from '../../../bench/pinning';

const SCHED_IDLE = 5;
const SCHED_OTHER = 0;

let kept: KeptAwake | undefined;
afterEach(() => {
  kept?.stop();
  kept = undefined;
  delete process.env['BENCH_KEEP_AWAKE'];
});

const alive = (pid: number) => {
  try {
    // A killed child stays a zombie until its parent reaps it: gone or zombie, it no longer runs.
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};

const hasChrt = spawnSync('chrt', ['--version']).status === 0;
/** The first CPU this process may run on: a spinner pinned there is one the test may start. */
const cpu = cpuList(/^Cpus_allowed_list:\s+(.+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '0')[0] ?? 0;

describe('keepAwake', () => {
  (hasChrt ? it : it.skip)('runs one SCHED_IDLE spinner pinned to each CPU asked for, and stops them', async () => {
    kept = await keepAwake([cpu]);
    expect(kept.notBecause).toBeUndefined();
    expect(kept.cpus).toEqual([cpu]);
    const [pid] = kept.pids;
    expect(pid).toBeGreaterThan(0);
    expect(schedulingPolicy(pid as number)).toBe(SCHED_IDLE);
    expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toMatch(new RegExp(`^Cpus_allowed_list:\\s+${cpu}$`, 'm'));
    kept.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(alive(pid as number)).toBe(false);
  });

  it('ends a spinner whose bench is gone: one killed with its bench leaves no loop behind', async () => {
    // A stand-in bench: starts the spinner as keepAwake does, prints its pid, and exits at once.
    const bench = spawnSync(
      process.execPath,
      [
        '-e',
        `const child = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(SPINNER)}, String(process.pid)], { stdio: 'ignore', detached: true }); console.log(child.pid); process.exit(0);`,
      ],
      { encoding: 'utf8' },
    );
    const pid = Number(bench.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    for (let waited = 0; waited < 3000 && alive(pid); waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(alive(pid)).toBe(false);
  });

  it('keeps nothing awake, and says why, when the run is unpinned or BENCH_KEEP_AWAKE=false', async () => {
    kept = await keepAwake([]);
    expect(kept).toMatchObject({ cpus: [], pids: [], notBecause: 'the run is unpinned' });
    process.env['BENCH_KEEP_AWAKE'] = 'false';
    kept = await keepAwake([0]);
    expect(kept).toMatchObject({ cpus: [], pids: [], notBecause: 'BENCH_KEEP_AWAKE=false' });
  });
});

describe('schedulingPolicy', () => {
  it("reads a process's policy from /proc, and gives undefined for one that does not exist", () => {
    expect(schedulingPolicy(process.pid)).toBe(SCHED_OTHER);
    expect(schedulingPolicy(2 ** 22 + 1)).toBeUndefined();
  });
});

describe('probeWakeUp', () => {
  it('times round trips to the echo server, straight after the last one and after leaving it idle', async () => {
    const echo = await startEchoServer();
    const probe = await probeWakeUp(echo.port, 300, 20);
    await echo.close();
    expect(probe.idleFor).toBe(300);
    expect(probe.busyMicros).toBeGreaterThan(0);
    expect(probe.idleMicros).toBeGreaterThan(0);
    expect(Number.isFinite(probe.busyMicros + probe.idleMicros)).toBe(true);
  });
});
