import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { createIdleKeepAlive } from '../../../../lib/core/stream/idle-keep-alive';

describe('createIdleKeepAlive', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('calls onIdle after each interval without a touch', () => {
    const onIdle = jest.fn();
    createIdleKeepAlive({ intervalMs: 100, onIdle });

    jest.advanceTimersByTime(350);

    expect(onIdle).toHaveBeenCalledTimes(3);
  });

  it('measures the interval from the last touch', () => {
    const onIdle = jest.fn();
    const keepAlive = createIdleKeepAlive({ intervalMs: 100, onIdle });

    jest.advanceTimersByTime(90);
    keepAlive.touch();
    jest.advanceTimersByTime(99);
    const early = onIdle.mock.calls.length;
    jest.advanceTimersByTime(1);

    expect(early).toBe(0);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it('reads the clock it is given', () => {
    let now = 0;
    const onIdle = jest.fn();
    const keepAlive = createIdleKeepAlive({ intervalMs: 100, onIdle, now: () => now });

    now = 50;
    keepAlive.touch();
    now = 100;
    jest.advanceTimersByTime(100);

    expect(onIdle).not.toHaveBeenCalled();
  });

  it('stops on stop(), from inside onIdle too, and leaves no timer behind', () => {
    const stopped = createIdleKeepAlive({ intervalMs: 100, onIdle: jest.fn() });
    const onIdle = jest.fn(() => inside.stop());
    const inside = createIdleKeepAlive({ intervalMs: 100, onIdle });

    stopped.stop();
    jest.advanceTimersByTime(500);

    expect(onIdle).toHaveBeenCalledTimes(1);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('stops when its signal aborts, and never starts on an aborted one', () => {
    const controller = new AbortController();
    const onIdle = jest.fn();
    createIdleKeepAlive({ intervalMs: 100, onIdle, signal: controller.signal });
    createIdleKeepAlive({ intervalMs: 100, onIdle, signal: AbortSignal.abort() });

    jest.advanceTimersByTime(150);
    controller.abort();
    jest.advanceTimersByTime(500);

    expect(onIdle).toHaveBeenCalledTimes(1);
    expect(jest.getTimerCount()).toBe(0);
  });
});
