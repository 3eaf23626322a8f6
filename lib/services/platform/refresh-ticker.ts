/**
 * The background re-reads of a process that stays alive (ARCHITECTURE.md §3.5): one unref'd timer that
 * runs every registered refresh each `periodMs` — the fleet snapshot, the other instances' queue counts,
 * the runtime settings — so what routing reads from memory is never older than a period and a read, and
 * no request waits for the table while the process runs.
 *
 * It also tells a process that runs from one that was frozen. A Lambda container is frozen between
 * invocations and its timers with it; after a thaw its data is as old as the quiet spell, and only then
 * may a request wait for one read. The ticker says which case it is without guessing from the
 * environment: `awake` is true while its ticks fire on time. A tick that fires more than a period late
 * (the process was frozen, or its loop held that long) does not count, so a late tick that happens to
 * run before the thawed request does not make stale data look fresh; the next tick on time does.
 */

/** Runs `callback` once after `ms` and returns its cancel (tests pass timers they move by hand). */
export type Schedule = (callback: () => void, ms: number) => () => void;

export interface RefreshTicker {
  /** Runs `refresh` at every tick from now on. It must not throw: a failed read is its own to report. */
  onTick(refresh: () => void): void;
  /** Starts ticking (idempotent); the first tick is one period from now. */
  start(): void;
  /** Stops ticking: nothing more is read (shutdown). */
  stop(): void;
  /**
   * True while the ticks come on time: the last tick that fired at most one period late fired within two
   * periods of now. False before `start`, after `stop`, and from a freeze until the first tick on time.
   */
  awake(): boolean;
}

export interface RefreshTickerOptions {
  readonly periodMs: number;
  /** True once the instance is shutting down (its table going away): the next tick stops instead of reading. */
  readonly closed?: () => boolean;
  readonly clock?: () => number;
  readonly schedule?: Schedule;
}

/** A real timer that never keeps the process alive on its own. */
const unrefSchedule: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export function createRefreshTicker(options: RefreshTickerOptions): RefreshTicker {
  const { periodMs } = options;
  const clock = options.clock ?? Date.now;
  const schedule = options.schedule ?? unrefSchedule;
  const refreshes: (() => void)[] = [];
  let cancel: (() => void) | undefined;
  /** When the next tick should fire. */
  let dueAt = 0;
  /** When the last tick on time fired (or the ticker started); undefined while stopped. */
  let onTimeAt: number | undefined;

  function stop(): void {
    cancel?.();
    cancel = undefined;
    onTimeAt = undefined;
  }

  // A timer per tick, not an interval: how late each fires is what tells a freeze.
  const tick = (): void => {
    if (options.closed?.() === true) {
      stop();
      return;
    }
    const now = clock();
    if (now - dueAt <= periodMs) onTimeAt = now;
    dueAt = now + periodMs;
    cancel = schedule(tick, periodMs);
    for (const refresh of refreshes) refresh();
  };

  return {
    onTick(refresh) {
      refreshes.push(refresh);
    },
    start() {
      if (cancel !== undefined) return;
      onTimeAt = clock();
      dueAt = onTimeAt + periodMs;
      cancel = schedule(tick, periodMs);
    },
    stop,
    awake() {
      return onTimeAt !== undefined && clock() - onTimeAt <= 2 * periodMs;
    },
  };
}
