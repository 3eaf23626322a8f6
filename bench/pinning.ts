/**
 * Where the bench's parties run (issue 24): the server measured — the router, or the bare proxy it is
 * compared with — alone on one core, and the load generator (this process), the fast node and the table
 * on another, so no ratio is decided by how a two-core host happens to share its cores. taskset (util-
 * linux) pins them. Where it is missing, or this process may use fewer than two CPUs, the run says why
 * and every figure is marked unpinned. `BENCH_PIN=false` turns pinning off on purpose.
 */
import { spawnSync } from 'node:child_process';

export interface Pinning {
  /** The CPU the server under test runs on; undefined when unpinned. */
  readonly serverCpu: number | undefined;
  /** The CPU of the load generator, the node and the table; undefined when unpinned. */
  readonly loadCpu: number | undefined;
  /** Why the run is unpinned; undefined when pinned. */
  readonly unpinnedBecause: string | undefined;
}

/** CPU numbers of a taskset list such as `0-3,6`. */
export function cpuList(text: string): number[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .flatMap((part) => {
      const [from, to] = part.split('-').map(Number);
      if (from === undefined || Number.isNaN(from)) return [];
      const last = to === undefined || Number.isNaN(to) ? from : to;
      return Array.from({ length: last - from + 1 }, (_, index) => from + index);
    });
}

function detect(): Pinning {
  const unpinned = (why: string): Pinning => ({ serverCpu: undefined, loadCpu: undefined, unpinnedBecause: why });
  if (process.env['BENCH_PIN'] === 'false') return unpinned('BENCH_PIN=false');
  const asked = spawnSync('taskset', ['-pc', String(process.pid)], { encoding: 'utf8' });
  if (asked.error !== undefined || asked.status !== 0) {
    return unpinned(`taskset is not available (${asked.error?.message ?? asked.stderr.trim()}); install util-linux`);
  }
  const cpus = cpuList(/list:\s*(.+)$/m.exec(asked.stdout)?.[1] ?? '');
  const [serverCpu, loadCpu] = cpus;
  if (serverCpu === undefined || loadCpu === undefined) {
    return unpinned(`this process may use ${cpus.length} CPU(s); pinning needs two`);
  }
  return { serverCpu, loadCpu, unpinnedBecause: undefined };
}

let decided: Pinning | undefined;

/** The run's pinning, decided once; the first call also moves this process (the load) to its CPU. */
export function pinning(): Pinning {
  if (decided !== undefined) return decided;
  decided = detect();
  if (decided.loadCpu !== undefined) {
    spawnSync('taskset', ['-pc', String(decided.loadCpu), String(process.pid)], { stdio: 'ignore' });
  }
  return decided;
}

/** The command and arguments that run `command args` on the CPU of `role` (unchanged when unpinned). */
export function onCpuOf(role: 'server' | 'load', command: string, args: readonly string[]): [string, string[]] {
  const { serverCpu, loadCpu } = pinning();
  const cpu = role === 'server' ? serverCpu : loadCpu;
  return cpu === undefined ? [command, [...args]] : ['taskset', ['-c', String(cpu), command, ...args]];
}

/**
 * Moves a running process, every thread of it, to the CPU of `role` (nothing when unpinned): a child the
 * server under test started itself, which inherits the server's CPU (the router's table is a thread:
 * `moveThreadToCpuOf`).
 */
export function moveToCpuOf(role: 'server' | 'load', pid: number): void {
  const { serverCpu, loadCpu } = pinning();
  const cpu = role === 'server' ? serverCpu : loadCpu;
  if (cpu !== undefined) spawnSync('taskset', ['-a', '-pc', String(cpu), String(pid)], { stdio: 'ignore' });
}

/** Moves one thread of a process (its tid), and only it, to the CPU of `role`. */
export function moveThreadToCpuOf(role: 'server' | 'load', tid: number): void {
  const { serverCpu, loadCpu } = pinning();
  const cpu = role === 'server' ? serverCpu : loadCpu;
  if (cpu !== undefined) spawnSync('taskset', ['-pc', String(cpu), String(tid)], { stdio: 'ignore' });
}

/** One line for the report: where each party ran. */
export function pinningText(): string {
  const { serverCpu, loadCpu, unpinnedBecause } = pinning();
  return unpinnedBecause === undefined
    ? `pinned: the server under test on CPU ${serverCpu}; the load, the node and the table on CPU ${loadCpu}`
    : `UNPINNED (${unpinnedBecause}): every figure below shares the cores with the load`;
}
