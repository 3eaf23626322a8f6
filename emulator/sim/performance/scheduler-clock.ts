/**
 * The clock the node scheduler runs on: monotonic milliseconds and one-shot timers. The real one reads
 * `performance.now()` and uses `setTimeout`; `ManualClock` lets tests drive the scheduler step by step
 * without waiting on a (slow, shared) machine.
 */

export interface SchedulerClock {
  /** Monotonic ms (fractions allowed). */
  now(): number;
  /** Runs `run` once at `atMs` (at once when it has passed); returns the cancel function. */
  schedule(atMs: number, run: () => void): () => void;
}

export function realClock(): SchedulerClock {
  return {
    now: () => performance.now(),
    schedule: (atMs, run) => {
      // Rounded up: Node's timers count whole milliseconds, and one that fires early only costs a re-check.
      const timer = setTimeout(run, Math.max(0, Math.ceil(atMs - performance.now())));
      return () => clearTimeout(timer);
    },
  };
}

interface Pending {
  readonly at: number;
  readonly seq: number;
  readonly run: () => void;
}

/** A clock that moves only when told to, running due timers in time order (ties: scheduling order). */
export class ManualClock implements SchedulerClock {
  private time = 0;
  private seq = 0;
  private pending: Pending[] = [];

  now(): number {
    return this.time;
  }

  schedule(atMs: number, run: () => void): () => void {
    const entry = { at: Math.max(atMs, this.time), seq: this.seq++, run };
    this.pending.push(entry);
    return () => {
      this.pending = this.pending.filter((p) => p !== entry);
    };
  }

  /** Moves to `now + ms`, running every timer due on the way at its own time. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const next = this.nextDue(end);
      if (next === undefined) break;
      this.pending = this.pending.filter((p) => p !== next);
      this.time = next.at;
      next.run();
    }
    this.time = end;
  }

  /** Runs timers until none is left (or `limitMs` has passed); returns the time reached. */
  runAll(limitMs = 1e9): number {
    this.advance(0);
    while (this.pending.length > 0 && this.time < limitMs) {
      const next = this.nextDue(limitMs);
      if (next === undefined) break;
      this.advance(next.at - this.time);
    }
    return this.time;
  }

  private nextDue(end: number): Pending | undefined {
    let next: Pending | undefined;
    for (const p of this.pending) {
      if (p.at > end) continue;
      if (next === undefined || p.at < next.at || (p.at === next.at && p.seq < next.seq)) next = p;
    }
    return next;
  }
}
