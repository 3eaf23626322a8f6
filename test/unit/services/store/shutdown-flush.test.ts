import { afterEach, describe, expect, it } from '@jest/globals';
import { type Flushable, installShutdownFlush } from '../../../../lib/services/store/shutdown-flush';

/** A queue stand-in that records flushes; the real queue is covered on dynalite. */
function fakeQueue(pendingWrites: number, failFlush = false) {
  let pending = pendingWrites;
  let flushes = 0;
  const queue: Flushable = {
    async flush() {
      flushes++;
      await new Promise((resolve) => setImmediate(resolve));
      if (failFlush) throw new Error('table down');
      pending = 0;
    },
    pending: () => pending,
  };
  return { queue, flushes: () => flushes };
}

const listenerCounts = () => ({
  SIGTERM: process.listenerCount('SIGTERM'),
  SIGINT: process.listenerCount('SIGINT'),
  beforeExit: process.listenerCount('beforeExit'),
});

describe('installShutdownFlush', () => {
  const uninstalls: (() => void)[] = [];
  afterEach(() => {
    for (const uninstall of uninstalls.splice(0)) uninstall();
  });

  it('installs one set of listeners per queue however often it is called', () => {
    const before = listenerCounts();
    const { queue } = fakeQueue(0);

    const first = installShutdownFlush(queue, { reRaise: () => {} });
    const second = installShutdownFlush(queue, { reRaise: () => {} });
    uninstalls.push(first);

    expect(second).toBe(first);
    expect(listenerCounts()).toEqual({
      SIGTERM: before.SIGTERM + 1,
      SIGINT: before.SIGINT + 1,
      beforeExit: before.beforeExit + 1,
    });
    first();
    expect(listenerCounts()).toEqual(before);
  });

  it('flushes on SIGTERM, then removes itself and re-raises the signal', async () => {
    const before = listenerCounts();
    const { queue, flushes } = fakeQueue(3);
    const raised: string[] = [];
    uninstalls.push(installShutdownFlush(queue, { reRaise: (signal) => raised.push(signal) }));

    process.emit('SIGTERM', 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(flushes()).toBe(1);
    expect(queue.pending()).toBe(0);
    expect(listenerCounts()).toEqual(before);
    // The jest worker has no SIGTERM listener of its own, so ours was the last: the default runs.
    expect(raised).toEqual(before.SIGTERM === 0 ? ['SIGTERM'] : []);
  });

  it('flushes before exit only while writes are pending, and gives up after a failed flush', async () => {
    const logged: string[] = [];
    const failing = fakeQueue(2, true);
    uninstalls.push(installShutdownFlush(failing.queue, { reRaise: () => {}, log: (line) => logged.push(line) }));

    process.emit('beforeExit', 0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    process.emit('beforeExit', 0);
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(failing.flushes()).toBe(1);
    expect(logged).toEqual([expect.stringMatching(/flush before exit failed, 2 writes lost: Error: table down/)]);
  });
});
