/**
 * CPU time (user + system) a process, or one of its threads, has used so far, read from /proc; Linux only,
 * like these machines. The router's table runs on a thread of the router's process (emulator/dynamo-thread,
 * named `fleet-table`): it stands for DynamoDB, outside the function on Lambda, so the router's own CPU is
 * its process's less that thread's, and the thread's is read apart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { TABLE_THREAD_NAME } from '../emulator/dynamo-thread';

const TICKS_PER_SECOND = 100;

/** CPU µs in the text of a `/proc/<pid>/stat` or `/proc/<pid>/task/<tid>/stat`. */
export function cpuMicrosInStat(stat: string): number {
  // Fields after the command name, which may itself contain spaces, closed by ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  return ((user + system) * 1e6) / TICKS_PER_SECOND;
}

/** Every thread of the process. */
export function processCpuMicros(pid: number): number {
  return cpuMicrosInStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** The thread of `pid` that runs its table, if it has one. */
export function tableThreadOf(pid: number): number | undefined {
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === TABLE_THREAD_NAME) return Number(tid);
    } catch {
      // The thread ended while the folder was read.
    }
  }
  return undefined;
}

/** The table thread's CPU µs; 0 for a process without one. */
export function tableThreadCpuMicros(pid: number): number {
  const tid = tableThreadOf(pid);
  if (tid === undefined) return 0;
  try {
    return cpuMicrosInStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
  } catch {
    return 0;
  }
}

/** A server's own CPU µs: its process's, less its table thread's. */
export function serverCpuMicros(pid: number): number {
  return processCpuMicros(pid) - tableThreadCpuMicros(pid);
}
