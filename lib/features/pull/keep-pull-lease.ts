/**
 * Keeps a model pull's lease alive while the pull runs (ARCHITECTURE.md §3.6; the lease:
 * lib/services/store/pull-lock-repository): renews it every third of its lifetime, each renewal scheduled
 * once the previous one has answered, until `stop`. A renewal the table fails (a timeout) is retried at
 * the next tick and logged once per run of failures; two can fail in a row before the lease lapses.
 *
 * A renewal that finds the lock no longer this pull's — it lapsed and another pull took it, or it is gone
 * — ends the renewals and is logged once, and the pull goes on streaming: the lock only saves a node
 * the waste of pulling one model twice at once (layers are content-addressed: a second pull writes the
 * same files, it does not damage them), so cutting a healthy pull short would cost more than it saves,
 * and taking the lock back would break the other pull's lock instead. The timer is unref'd, so it never keeps a process alive.
 */
import type { PullLease } from '../../services/store/pull-lock-repository';

/** Renewals per lease lifetime. */
export const RENEWALS_PER_LEASE = 3;

export interface KeepPullLeaseOptions {
  readonly lease: Pick<PullLease, 'renew' | 'leaseMs'>;
  /** The model pulled, for the log. */
  readonly model: string;
  readonly log?: (line: string) => void;
  /** Runs `callback` after `ms`; returns a cancel. Default: an unref'd timer. */
  readonly schedule?: (callback: () => void, ms: number) => () => void;
}

const realSchedule = (callback: () => void, ms: number): (() => void) => {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/** Starts renewing; the returned function stops it (call it on every way the pull ends, before the release). */
export function keepPullLease(options: KeepPullLeaseOptions): () => void {
  const { lease, model } = options;
  const log = options.log ?? console.error;
  const schedule = options.schedule ?? realSchedule;
  const everyMs = Math.max(1, Math.floor(lease.leaseMs / RENEWALS_PER_LEASE));
  let done = false;
  let failing = false;
  let cancel: (() => void) | undefined;

  const next = (): void => {
    if (!done) cancel = schedule(renew, everyMs);
  };
  const renew = (): void => {
    cancel = undefined;
    lease.renew().then(
      (held) => {
        if (done) return;
        if (!held) {
          done = true;
          log(`the pull lock on '${model}' was lost (it lapsed and was taken, or is gone): the pull goes on unlocked`);
          return;
        }
        failing = false;
        next();
      },
      (error: unknown) => {
        if (done) return;
        if (!failing)
          log(`renewing the pull lock on '${model}' failed, retrying every ${everyMs} ms: ${String(error)}`);
        failing = true;
        next();
      },
    );
  };

  next();
  return () => {
    done = true;
    cancel?.();
    cancel = undefined;
  };
}
