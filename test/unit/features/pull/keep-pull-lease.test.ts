/**
 * `keepPullLease` on a fake clock: renewals every third of the lease, one at a time, until stopped (a
 * renewal in flight when it stops schedules nothing more); a lost lease ends the renewals with one log
 * line; a failed renewal is retried at the next tick and logged once per run of failures; the real timer
 * is unref'd.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { keepPullLease, RENEWALS_PER_LEASE } from '../../../../lib/features/pull/keep-pull-lease';

/** A clock the test advances by hand: `schedule` as the keeper takes it, and the timers waiting on it. */
function fakeClock() {
  let now = 0;
  let timers: { at: number; callback: () => void }[] = [];
  return {
    schedule(callback: () => void, ms: number): () => void {
      const timer = { at: now + ms, callback };
      timers.push(timer);
      return () => {
        timers = timers.filter((entry) => entry !== timer);
      };
    },
    pending: () => timers.length,
    /** Moves time on by `ms`, firing what falls due and letting the renewals it starts answer. */
    async advance(ms: number): Promise<void> {
      const until = now + ms;
      for (;;) {
        const due = timers.filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at)[0];
        if (due === undefined) break;
        timers = timers.filter((timer) => timer !== due);
        now = due.at;
        due.callback();
        await flush();
      }
      now = until;
    },
  };
}

/** Lets settled promises run their callbacks. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

function leaseAnswering(...answers: (boolean | Error)[]) {
  return {
    lease: {
      leaseMs: 3000,
      renew: jest.fn(async () => {
        const answer = answers.shift() ?? true;
        if (answer instanceof Error) throw answer;
        return answer;
      }),
    },
  };
}

describe('keepPullLease', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('renews every third of the lease while the pull runs, and stops when told', async () => {
    const clock = fakeClock();
    const { lease } = leaseAnswering();
    const stop = keepPullLease({ lease, model: 'm:latest', schedule: clock.schedule, log: jest.fn() });

    await clock.advance(999);
    const beforeFirst = lease.renew.mock.calls.length;
    await clock.advance(1);
    const afterFirst = lease.renew.mock.calls.length;
    await clock.advance(5000);
    const running = lease.renew.mock.calls.length;
    stop();
    await clock.advance(10_000);

    expect(RENEWALS_PER_LEASE).toBe(3);
    expect(beforeFirst).toBe(0);
    expect(afterFirst).toBe(1);
    expect(running).toBe(6);
    expect(lease.renew).toHaveBeenCalledTimes(6);
    expect(clock.pending()).toBe(0);
  });

  it('schedules the next renewal only once the last has answered, and nothing after a stop during one', async () => {
    const clock = fakeClock();
    let answer: (held: boolean) => void = () => undefined;
    const lease = {
      leaseMs: 3000,
      renew: jest.fn(() => new Promise<boolean>((resolve) => (answer = resolve))),
    };
    const stop = keepPullLease({ lease, model: 'm:latest', schedule: clock.schedule, log: jest.fn() });

    await clock.advance(1000);
    await clock.advance(5000);
    const whileWaiting = lease.renew.mock.calls.length;
    stop();
    answer(true);
    await flush();
    await clock.advance(10_000);

    expect(whileWaiting).toBe(1);
    expect(lease.renew).toHaveBeenCalledTimes(1);
    expect(clock.pending()).toBe(0);
  });

  it('stops renewing a lease it has lost, logging it once, and keeps no timer', async () => {
    const clock = fakeClock();
    const log = jest.fn();
    const { lease } = leaseAnswering(true, false);
    const stop = keepPullLease({ lease, model: 'lost:latest', schedule: clock.schedule, log });

    await clock.advance(10_000);
    stop();

    expect(lease.renew).toHaveBeenCalledTimes(2);
    expect(log).toHaveBeenCalledTimes(1);
    expect(log.mock.calls[0]?.[0]).toContain("the pull lock on 'lost:latest' was lost");
    expect(clock.pending()).toBe(0);
  });

  it('retries a failed renewal at the next tick, logging once per run of failures', async () => {
    const clock = fakeClock();
    const log = jest.fn();
    const { lease } = leaseAnswering(new Error('timeout'), new Error('timeout'), true, new Error('throttled'));
    const stop = keepPullLease({ lease, model: 'slow:latest', schedule: clock.schedule, log });

    await clock.advance(5000);
    stop();

    expect(lease.renew).toHaveBeenCalledTimes(5);
    expect(log.mock.calls.map((call) => call[0])).toEqual([
      "renewing the pull lock on 'slow:latest' failed, retrying every 1000 ms: Error: timeout",
      "renewing the pull lock on 'slow:latest' failed, retrying every 1000 ms: Error: throttled",
    ]);
  });

  it('logs nothing when the renewal in flight at the stop finds the lock released', async () => {
    const clock = fakeClock();
    const log = jest.fn();
    let answer: (held: boolean) => void = () => undefined;
    const lease = { leaseMs: 3000, renew: () => new Promise<boolean>((resolve) => (answer = resolve)) };
    const stop = keepPullLease({ lease, model: 'm:latest', schedule: clock.schedule, log });

    await clock.advance(1000);
    stop();
    answer(false);
    await flush();

    expect(log).not.toHaveBeenCalled();
  });

  it('renews on an unref’d timer by default, cleared when stopped', () => {
    jest.useFakeTimers();
    const { lease } = leaseAnswering();
    const spy = jest.spyOn(globalThis, 'setTimeout');

    const stop = keepPullLease({ lease, model: 'm:latest' });
    const timer = spy.mock.results[0]?.value as NodeJS.Timeout;
    const scheduled = jest.getTimerCount();
    stop();

    expect(spy).toHaveBeenCalledWith(expect.any(Function), 1000);
    expect(timer.hasRef()).toBe(false);
    expect(scheduled).toBe(1);
    expect(jest.getTimerCount()).toBe(0);
  });
});
