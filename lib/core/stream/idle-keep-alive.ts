/**
 * A timer that notices a quiet stream (protocols §6.4 `ping`; ARCHITECTURE.md §9.4): `onIdle` runs whenever
 * nothing was written for `intervalMs` — while a large model loads, or thinks without streaming — so the
 * stream's owner can write a keep-alive that stops clients and proxies from giving up on it. A write
 * only records the time (`touch`); the one timer re-arms itself for the last write plus the interval,
 * so a busy stream costs no timer churn. It stops on `stop()` or when `signal` aborts (the client left),
 * and never holds the process open.
 */

export interface IdleKeepAliveOptions {
  readonly intervalMs: number;
  /** Runs after `intervalMs` without a `touch`; counts as one. */
  readonly onIdle: () => void;
  /** Stops the timer when it aborts. */
  readonly signal?: AbortSignal;
  /** The clock, in ms (tests pass a fake one). */
  readonly now?: () => number;
}

export interface IdleKeepAlive {
  /** Something was written now. */
  touch(): void;
  stop(): void;
}

export function createIdleKeepAlive(options: IdleKeepAliveOptions): IdleKeepAlive {
  const { intervalMs, onIdle, signal } = options;
  const now = options.now ?? Date.now;
  let last = now();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const stop = (): void => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    signal?.removeEventListener('abort', stop);
  };

  const arm = (delayMs: number): void => {
    timer = setTimeout(tick, Math.max(0, delayMs));
    timer.unref();
  };

  function tick(): void {
    timer = undefined;
    if (stopped) return;
    const quietFor = now() - last;
    if (quietFor >= intervalMs) {
      last = now();
      onIdle();
      if (stopped) return;
      arm(intervalMs);
      return;
    }
    arm(intervalMs - quietFor);
  }

  if (signal?.aborted === true) stopped = true;
  else {
    signal?.addEventListener('abort', stop, { once: true });
    arm(intervalMs);
  }
  return {
    touch: () => {
      last = now();
    },
    stop,
  };
}
