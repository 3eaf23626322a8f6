/**
 * Flushes a write-behind queue when the process is about to go away (ARCHITECTURE.md §3.5: queued
 * traces and counters are never dropped): on SIGTERM/SIGINT it flushes, then lets the signal do what
 * it would have done (terminate) by re-raising it once no other listener remains; on `beforeExit` it
 * flushes, which keeps the event loop alive until the writes are done.
 */
import type { WriteBehind } from './write-behind';

export type Flushable = Pick<WriteBehind, 'flush' | 'pending'>;

export interface ShutdownFlushOptions {
  /** Default SIGTERM (Lambda with extensions, containers) and SIGINT (Ctrl-C). */
  readonly signals?: readonly NodeJS.Signals[];
  /** Runs once our listener is gone; default `process.kill(process.pid, signal)`, i.e. Node's default action. */
  readonly reRaise?: (signal: NodeJS.Signals) => void;
  readonly log?: (line: string) => void;
}

/** One installation per queue: installing twice returns the first uninstaller and adds no listeners. */
const installed = new WeakMap<Flushable, () => void>();

export function installShutdownFlush(writeBehind: Flushable, options: ShutdownFlushOptions = {}): () => void {
  const existing = installed.get(writeBehind);
  if (existing !== undefined) return existing;
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const reRaise = options.reRaise ?? ((signal: NodeJS.Signals) => process.kill(process.pid, signal));
  const log = options.log ?? ((line: string) => console.error(line));
  let flushingForSignal = false;
  let exitFlushFailed = false;

  const finish = (signal: NodeJS.Signals) => {
    uninstall();
    // Another listener still there means someone else owns the exit; re-raising would run it twice.
    if (process.listenerCount(signal) === 0) reRaise(signal);
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (flushingForSignal) {
      finish(signal); // a second signal: stop waiting for the table
      return;
    }
    flushingForSignal = true;
    writeBehind
      .flush()
      .catch((error: unknown) =>
        log(`write-behind: flush on ${signal} failed, ${writeBehind.pending()} writes lost: ${String(error)}`),
      )
      .finally(() => finish(signal));
  };

  const onBeforeExit = () => {
    // beforeExit fires again once the flush's I/O is done; stop when nothing is left or it failed.
    if (writeBehind.pending() === 0 || exitFlushFailed) return;
    writeBehind.flush().catch((error: unknown) => {
      exitFlushFailed = true;
      log(`write-behind: flush before exit failed, ${writeBehind.pending()} writes lost: ${String(error)}`);
    });
  };

  function uninstall(): void {
    for (const signal of signals) process.off(signal, onSignal);
    process.off('beforeExit', onBeforeExit);
    installed.delete(writeBehind);
  }

  for (const signal of signals) process.on(signal, onSignal);
  process.on('beforeExit', onBeforeExit);
  installed.set(writeBehind, uninstall);
  return uninstall;
}
