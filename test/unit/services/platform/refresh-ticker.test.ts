import { describe, expect, it } from '@jest/globals';
import { createRefreshTicker } from '../../../../lib/services/platform/refresh-ticker';
import { manualTimers } from '../../../helpers/manual-timers';

const PERIOD_MS = 500;

function setup(closed = () => false) {
  const timers = manualTimers();
  const ticker = createRefreshTicker({ periodMs: PERIOD_MS, clock: timers.clock, schedule: timers.schedule, closed });
  let ticks = 0;
  ticker.onTick(() => {
    ticks += 1;
  });
  /** Lets `ms` pass in a process that runs: every tick fires when it is due. */
  const run = (ms: number) => {
    for (let step = 0; step < ms; step += 50) timers.advance(50);
  };
  return { timers, ticker, run, ticks: () => ticks };
}

describe('createRefreshTicker', () => {
  it('runs its refreshes every period and is awake while its ticks come on time', () => {
    const { ticker, run, ticks } = setup();
    expect(ticker.awake()).toBe(false);

    ticker.start();
    run(2000);

    expect(ticks()).toBe(4);
    expect(ticker.awake()).toBe(true);
  });

  it('is not awake after a freeze, nor after the late tick that follows it, until a tick comes on time', () => {
    const { timers, ticker, run, ticks } = setup();
    ticker.start();
    run(1000);

    timers.freeze(5000);
    const frozen = ticker.awake();
    timers.advance(0);
    const afterLateTick = ticker.awake();
    const ticksAfterThaw = ticks();
    run(PERIOD_MS);

    expect(frozen).toBe(false);
    expect(afterLateTick).toBe(false);
    // The late tick still re-read: the thawed process's data starts catching up at once.
    expect(ticksAfterThaw).toBe(3);
    expect(ticker.awake()).toBe(true);
  });

  it('stays awake through a tick a little late, as on a busy loop', () => {
    const { timers, ticker, run } = setup();
    ticker.start();
    run(PERIOD_MS);

    timers.freeze(PERIOD_MS + 300);
    timers.advance(0);

    expect(ticker.awake()).toBe(true);
  });

  it('stops ticking when stopped, and once the instance is closing', () => {
    let closing = false;
    const stopped = setup();
    const closed = setup(() => closing);
    stopped.ticker.start();
    closed.ticker.start();

    stopped.ticker.stop();
    closing = true;
    stopped.run(2000);
    closed.run(2000);

    expect(stopped.ticks()).toBe(0);
    expect(closed.ticks()).toBe(0);
    expect(stopped.ticker.awake()).toBe(false);
    expect(closed.ticker.awake()).toBe(false);
  });
});
