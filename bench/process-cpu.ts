/** CPU time (user + system) a process has used so far, read from /proc; Linux only, like these machines. */
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

export function processCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which may itself contain spaces, closed by ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  return ((user + system) * 1e6) / TICKS_PER_SECOND;
}
