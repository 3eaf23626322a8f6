/**
 * The bench's cores kept awake (issue 24; docs/performance-journal.md, "what a core costs to wake"). On a
 * virtual machine a core with nothing to run halts, and after a while the host stops watching for its
 * wake-up; waking it then costs the hypervisor's time, not the program's. Measured on these machines
 * (2026-11-27): a loopback round trip to a process on the other core took ~110 µs when that core had been
 * idle under 200 µs, and ~430–460 µs once it had been idle 250 µs or more. A lone request to the router,
 * the bare proxy or the frame leaves its core idle for about that long twice (waiting for the node, then
 * for the client's next request), so a few microseconds of its own work decided whether it paid ~320 µs
 * more: one run's sequential figure was a draw on the host.
 *
 * So each pinned core runs a spinner at `SCHED_IDLE` (`chrt`, util-linux, like `taskset`): it runs only
 * when nothing else on its core can, and a woken process takes the core from it at once, so no core
 * halts and every party wakes as fast as on a machine whose cores do not sleep. The run first measures
 * the penalty it removes and says what was kept awake; `BENCH_KEEP_AWAKE=false` leaves the cores alone.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { basename } from 'node:path';
import { pinning } from './pinning';
import { startRole } from './processes';
import { formatNumber, median } from './stats';

/** Linux's number for the `SCHED_IDLE` policy, as /proc/<pid>/sched shows it. */
const SCHED_IDLE = 5;

export interface KeptAwake {
  /** The CPUs a spinner keeps awake; empty when none could be started. */
  readonly cpus: readonly number[];
  /** The spinners' processes, one per CPU. */
  readonly pids: readonly number[];
  /** Why nothing is kept awake; undefined when the spinners run. */
  readonly notBecause: string | undefined;
  stop(): void;
}

/** The scheduling policy of a process, from /proc (Linux only, like these machines); undefined if unreadable. */
export function schedulingPolicy(pid: number): number | undefined {
  try {
    const found = /^policy\s*:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/sched`, 'utf8'));
    return found?.[1] === undefined ? undefined : Number(found[1]);
  } catch {
    return undefined;
  }
}

function none(why: string): KeptAwake {
  return { cpus: [], pids: [], notBecause: why, stop: () => undefined };
}

/** What /proc/<pid>/comm says for this Node (`node`, or `nodejs` where a distribution names it so). */
const NODE_COMM = basename(process.execPath).slice(0, 15);

/** A process's command name from /proc; undefined once it is gone. */
function commandName(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Waits until `child` runs at SCHED_IDLE (true), or exits or takes too long (false). */
async function runsIdle(child: ChildProcess): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (child.exitCode !== null || child.pid === undefined) return false;
    // chrt sets the policy before it runs Node: done once the process is Node (`comm`, cut at 15 bytes).
    if (schedulingPolicy(child.pid) === SCHED_IDLE && commandName(child.pid) === NODE_COMM) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/**
 * The spinner: a busy loop that looks up every ~50 ms whether the bench that started it (its one
 * argument, a pid) is still its parent, and ends when it is not, so a bench stopped with Ctrl-C or
 * killed leaves no loop behind.
 */
export const SPINNER =
  'const bench = Number(process.argv[1]); for (let i = 0; ; i += 1) if (i % 5e7 === 0 && process.ppid !== bench) break;';

/** A `SCHED_IDLE` spinner on each of `cpus`, or none at all (and why) where one cannot be started. */
export async function keepAwake(cpus: readonly number[]): Promise<KeptAwake> {
  if (process.env['BENCH_KEEP_AWAKE'] === 'false') return none('BENCH_KEEP_AWAKE=false');
  if (cpus.length === 0) return none('the run is unpinned');
  const chrt = spawnSync('chrt', ['--version'], { encoding: 'utf8' });
  if (chrt.error !== undefined || chrt.status !== 0) return none('chrt is not available; install util-linux');
  const spinners = cpus.map((cpu) =>
    spawn('taskset', ['-c', String(cpu), 'chrt', '--idle', '0', process.execPath, '-e', SPINNER, String(process.pid)], {
      stdio: 'ignore',
    }),
  );
  const stop = () => {
    for (const spinner of spinners) spinner.kill('SIGKILL');
  };
  const started = await Promise.all(spinners.map(runsIdle));
  if (started.includes(false)) {
    stop();
    return none('a SCHED_IDLE spinner did not start (chrt --idle refused?)');
  }
  return { cpus, pids: spinners.map((spinner) => spinner.pid ?? 0), notBecause: undefined, stop };
}

/** A server that echoes what it receives: the far end of the wake-up probe, run on the server's core. */
export async function startEchoServer(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', (data) => socket.write(data));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Busy for `micros`: the prober's own core never halts while it waits. */
function spin(micros: number): void {
  const until = process.hrtime.bigint() + BigInt(Math.round(micros * 1000));
  while (process.hrtime.bigint() < until);
}

function roundTrip(socket: Socket): Promise<number> {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    socket.once('data', () => resolve(Number(process.hrtime.bigint() - started) / 1000));
    socket.write('x');
  });
}

export interface WakeProbe {
  /** Median round trip, µs, to the echo server right after its last one. */
  readonly busyMicros: number;
  /** Median round trip, µs, to the echo server after it was left idle for `idleFor` µs. */
  readonly idleMicros: number;
  readonly idleFor: number;
}

/**
 * Round trips to the echo server on `port`: `samples` straight after each other, then `samples` each
 * after leaving it idle `idleFor` µs (this process spins meanwhile, so only the server's core can have
 * slept). Each kind in a row: the host learns how long its cores sleep and waits for a wake-up
 * accordingly, so a row of idle round trips meets it as a row of lone requests does.
 */
export async function probeWakeUp(port: number, idleFor = 400, samples = 200): Promise<WakeProbe> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.setNoDelay(true);
  try {
    const busy: number[] = [];
    const idle: number[] = [];
    for (let index = 0; index < samples; index += 1) busy.push(await roundTrip(socket));
    for (let index = 0; index < samples; index += 1) {
      spin(idleFor);
      idle.push(await roundTrip(socket));
    }
    return { busyMicros: median(busy), idleMicros: median(idle), idleFor };
  } finally {
    socket.destroy();
  }
}

/**
 * Keeps both of the run's cores awake (./pinning) and says so, with the wake-up penalty this host had
 * without the spinners and what is left of it with them.
 */
export async function keepBenchAwake(): Promise<KeptAwake> {
  const { serverCpu, loadCpu } = pinning();
  const cpus = serverCpu === undefined || loadCpu === undefined ? [] : [serverCpu, loadCpu];
  const echo = await startRole(['serve-echo'], 'server');
  try {
    const port = Number(new URL(echo.url).port);
    const before = await probeWakeUp(port);
    const kept = await keepAwake(cpus);
    const penalty = (probe: WakeProbe) =>
      `${formatNumber(probe.idleMicros, 0)} µs after ${probe.idleFor} µs idle, ${formatNumber(probe.busyMicros, 0)} µs straight after the last (${signed(probe.idleMicros - probe.busyMicros)} µs to wake)`;
    console.log(`waking the server's core: a round trip took ${penalty(before)}`);
    if (kept.notBecause !== undefined) {
      console.log(`cores NOT kept awake (${kept.notBecause}): the lone-request figures below include that wake-up`);
    } else {
      console.log(
        `cores kept awake: a SCHED_IDLE spinner on CPU ${kept.cpus.join(' and ')}; now ${penalty(await probeWakeUp(port))}`,
      );
    }
    return kept;
  } finally {
    await echo.stop();
  }
}

/** `+12` or `-3`: a difference, with its sign. */
function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${formatNumber(value, 0)}`;
}

/** For the budgets' heading: whether the cores were kept awake. */
export function awakeText(kept: KeptAwake): string {
  return kept.notBecause === undefined ? 'cores kept awake' : `cores NOT kept awake: ${kept.notBecause}`;
}
