/** Timers that fire only when the test moves the clock: the queue manager's `Schedule`, from T0. */
import type { Schedule } from '../../lib/services/dispatch/queue-manager';
import { T0 } from './factories';

export function manualTimers() {
  let now = T0;
  const timers: { at: number; callback: () => void; cancelled: boolean }[] = [];
  const schedule: Schedule = (callback, ms) => {
    const timer = { at: now + ms, callback, cancelled: false };
    timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };
  return {
    schedule,
    clock: () => now,
    /**
     * Moves the clock without firing anything: a process frozen for `ms` (a Lambda container between
     * invocations). The timers that fell due meanwhile fire, late, at the next `advance`.
     */
    freeze(ms: number) {
      now += ms;
    },
    advance(ms: number) {
      now += ms;
      for (const timer of timers) {
        if (!timer.cancelled && timer.at <= now) {
          timer.cancelled = true;
          timer.callback();
        }
      }
    },
  };
}
