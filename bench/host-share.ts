/**
 * Whether the run had the machine to itself: the CPU time other processes used while it ran, as a share
 * of all the CPU time there was. Pinning (./pinning) decides where the bench's parties run, not whether
 * something else — another session's tests, a browser — runs on the same cores; a run that shared them
 * measured the neighbour as much as the router (one such run read 155 ms for a bare `node -e 0` and 10 ms
 * for a first byte the quiet machine gives in 0.5). From /proc (Linux only, like these machines): the
 * machine's busy time from /proc/stat, less the bench's own — this process, every descendant still running
 * (its spinners included, which fill every idle moment: ./keep-awake) and every child it has reaped. Only
 * this machine's processes are seen: a neighbour on the host outside this virtual machine is not.
 * The parsers and the share are pure, for the tests.
 */
import { readFileSync } from 'node:fs';
import { processTree } from './process-tree';

/** Busy clock ticks of all CPUs in the text of /proc/stat: user, nice, system, irq, softirq and steal. */
export function busyTicksInStat(stat: string): number {
  const fields = (/^cpu\s+(.+)$/m.exec(stat)?.[1] ?? '').trim().split(/\s+/).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return user + nice + system + irq + softirq + steal;
}

/** The CPU count in the text of /proc/stat (its `cpuN` lines). */
export function cpusInStat(stat: string): number {
  return stat.match(/^cpu\d+\s/gm)?.length ?? 0;
}

/** Ticks a process used, and its reaped children used, from the text of /proc/<pid>/stat (utime to cstime). */
export function processTicksInStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [11, 12, 13, 14].reduce((sum, index) => sum + (Number(fields[index]) || 0), 0);
}

/** The others' share of the CPU time between two readings, 0 to 1. */
export function othersShare(busyTicks: number, ownTicks: number, elapsedTicks: number, cpus: number): number {
  const all = elapsedTicks * cpus;
  return all <= 0 ? 0 : Math.min(1, Math.max(0, (busyTicks - ownTicks) / all));
}

const TICKS_PER_SECOND = 100;

interface Reading {
  readonly busy: number;
  readonly own: number;
  readonly at: number;
  readonly cpus: number;
}

function read(): Reading {
  const stat = readFileSync('/proc/stat', 'utf8');
  let own = 0;
  for (const pid of processTree(process.pid)) {
    try {
      own += processTicksInStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      // Gone since the tree was read: its parent has reaped it, or will.
    }
  }
  return { busy: busyTicksInStat(stat), own, at: performance.now(), cpus: cpusInStat(stat) };
}

export interface HostShare {
  /** The others' share of the machine's CPU time since the start, 0 to 1. */
  othersSoFar(): number;
}

/** Starts watching what the rest of the machine uses. */
export function watchHostShare(): HostShare {
  const start = read();
  return {
    othersSoFar() {
      const now = read();
      const elapsedTicks = ((now.at - start.at) / 1000) * TICKS_PER_SECOND;
      return othersShare(now.busy - start.busy, now.own - start.own, elapsedTicks, now.cpus);
    },
  };
}
