/**
 * The event loop first (issue 42, ARCHITECTURE.md §6): V8's helper threads — the optimising compiler and
 * the collector's concurrent marking, sweeping and parallel scavenging — run at the lowest CPU priority,
 * so on a core they share with the event loop (the router pinned to one core, as the benchmark runs it, or
 * a one-vCPU machine) they take the loop's idle time instead of preempting it. With 250 streams the loop
 * idles about half the time, yet at equal priority the kernel shared the core between it and a helper for
 * each compile or marking burst: during the loop's stalls of 10 ms and more, the helpers ran about as long
 * as the loop did (perf sched), and they were still compiling some fifty functions a stream round after
 * the warm-up. Where there are cores to spare, the helpers run on another one as before.
 *
 * Linux only (threads are found in /proc, as `top -H` finds them); elsewhere nothing changes. The helpers
 * are the threads that carry the process's own name (its executable's, which they took when V8 started
 * them, or the main thread's): a thread that names itself (the table thread, emulator/dynamo-thread, and
 * the threads it starts) is not one of the loop's helpers and is left alone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { basename } from 'node:path';

/** Lowest priority (nice 19): a helper gets the core when the loop does not want it. */
export const HELPER_NICE = 19;

export interface ThreadName {
  readonly tid: number;
  readonly name: string;
}

/** Linux keeps the first 15 bytes of a thread's name. */
const MAX_NAME_LENGTH = 15;

/**
 * The helpers among `threads`: every thread but the main one that bears the name the process started
 * with (`startName`, its executable's) or the main thread's name now.
 */
export function helperThreads(mainTid: number, threads: readonly ThreadName[], startName: string): number[] {
  const names = new Set([startName.slice(0, MAX_NAME_LENGTH)]);
  const main = threads.find((thread) => thread.tid === mainTid);
  if (main !== undefined) names.add(main.name);
  return threads.filter((thread) => thread.tid !== mainTid && names.has(thread.name)).map((thread) => thread.tid);
}

function threadsOfThisProcess(): ThreadName[] {
  const threads: ThreadName[] = [];
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      threads.push({ tid: Number(tid), name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() });
    } catch {
      // The thread ended while the folder was read.
    }
  }
  return threads;
}

/**
 * Lowers the helper threads running now to `HELPER_NICE` (V8's, and any pool thread of Node's started by
 * then, whose work the loop also waits for only when it has nothing else to do); returns how many. V8
 * starts its helpers with the process, so calling this once at start-up covers them. Never throws: a
 * platform without /proc, or a thread that ended meanwhile, only leaves priorities as they were.
 */
export function lowerHelperThreadPriority(): number {
  if (process.platform !== 'linux') return 0;
  let threads: ThreadName[];
  try {
    threads = threadsOfThisProcess();
  } catch {
    return 0;
  }
  let lowered = 0;
  for (const tid of helperThreads(process.pid, threads, basename(process.execPath))) {
    try {
      setPriority(tid, HELPER_NICE);
      lowered += 1;
    } catch {
      // Gone since it was listed.
    }
  }
  return lowered;
}
