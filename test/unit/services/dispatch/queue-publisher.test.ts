import { describe, expect, it } from '@jest/globals';
import type { NodeModelQueue, QueueState } from '../../../../lib/services/dispatch/queue-manager';
import {
  createQueuePublisher,
  PUBLISH_INTERVAL_MS,
  REFRESH_INTERVAL_MS,
  URGENT_INTERVAL_MS,
} from '../../../../lib/services/dispatch/queue-publisher';
import { makeQueueState } from '../../../helpers/factories';
import { manualTimers } from '../../../helpers/manual-timers';

function setup(options: { peers?: boolean } = {}) {
  const timers = manualTimers();
  const start = timers.clock();
  let current: QueueState[] = [];
  let closed = false;
  let flushes = 0;
  /** The one queue, as far as the publisher looks at it. */
  const queue = { inFlight: 0 } as NodeModelQueue;
  /** [ms since start, in flight + pending] of every publication. */
  const published: [number, number][] = [];
  const publisher = createQueuePublisher({
    instanceId: 'instance-1',
    queues: { entries: () => current, forEachQueue: (visit) => visit(queue) },
    peersLive: () => options.peers === true,
    flush: async () => {
      flushes += 1;
    },
    states: {
      publish: (_id, entries, now) =>
        published.push([now - start, entries.reduce((sum, entry) => sum + entry.inFlight + entry.pending, 0)]),
    },
    closed: () => closed,
    clock: timers.clock,
    schedule: timers.schedule,
  });
  /** The queues change to `depth` (in flight) and tell the publisher, as the queue manager does. */
  const change = (depth: number) => {
    current = [makeQueueState({ inFlight: depth })];
    queue.inFlight = depth;
    publisher.changed(queue);
  };
  const close = () => {
    closed = true;
  };
  return { timers, change, published, close, flushes: () => flushes, announce: () => publisher.announce() };
}

describe('createQueuePublisher', () => {
  it('publishes the first change at once and a burst within the second once, with its last state', () => {
    const { timers, change, published } = setup();
    change(1);
    timers.advance(100);
    change(2);
    timers.advance(100);
    change(1);
    timers.advance(PUBLISH_INTERVAL_MS);

    expect(published).toEqual([
      [0, 1],
      [PUBLISH_INTERVAL_MS + 200, 1],
    ]);
  });

  it('does not hold a change back until the next refresh of a busy state', () => {
    const { timers, change, published } = setup();
    change(1);
    timers.advance(200);
    change(0);
    timers.advance(PUBLISH_INTERVAL_MS - 200);

    expect(published).toEqual([
      [0, 1],
      [PUBLISH_INTERVAL_MS, 0],
    ]);
  });

  it('republishes a busy state every few seconds, and an idle one no more', () => {
    const { timers, change, published } = setup();
    change(1);
    for (let step = 0; step < 2; step += 1) timers.advance(REFRESH_INTERVAL_MS);
    change(0);
    timers.advance(PUBLISH_INTERVAL_MS);
    timers.advance(3 * REFRESH_INTERVAL_MS);

    expect(published).toEqual([
      [0, 1],
      [REFRESH_INTERVAL_MS, 1],
      [2 * REFRESH_INTERVAL_MS, 1],
      [2 * REFRESH_INTERVAL_MS + PUBLISH_INTERVAL_MS, 0],
    ]);
  });

  it('publishes nothing once the instance is closing', () => {
    const { timers, change, published, close } = setup();
    change(1);
    close();
    change(0);
    timers.advance(REFRESH_INTERVAL_MS);

    expect(published).toEqual([[0, 1]]);
  });

  describe('with other instances live', () => {
    it('publishes a freed slot the last publication showed running at once, and sends it now', () => {
      const { timers, change, published, flushes } = setup({ peers: true });
      change(2);
      timers.advance(100);
      change(1);

      expect(published).toEqual([
        [0, 2],
        [100, 1],
      ]);
      expect(flushes()).toBe(1);
    });

    it('holds back a slot freed and taken again, and one the others never saw taken', () => {
      const { timers, change, published, flushes } = setup({ peers: true });
      change(1);
      timers.advance(100);
      // Freed and taken again before anyone could wait for it: nothing the others see changes.
      change(1);
      timers.advance(100);
      change(2);
      timers.advance(100);
      // The second slot was taken after the publication: the others never counted it.
      change(1);
      timers.advance(PUBLISH_INTERVAL_MS);

      expect(published).toEqual([
        [0, 1],
        [PUBLISH_INTERVAL_MS + 300, 1],
      ]);
      expect(flushes()).toBe(0);
    });

    it('publishes a slot freed early only once: the next one freed is compared with what went out', () => {
      const { timers, change, published } = setup({ peers: true });
      change(3);
      timers.advance(100);
      change(2);
      timers.advance(100);
      change(2);
      timers.advance(100);
      change(1);

      expect(published).toEqual([
        [0, 3],
        [100, 2],
        [300, 1],
      ]);
    });
  });

  it('sends slots freed in a burst together, URGENT_INTERVAL_MS after the last', () => {
    const { timers, change, published } = setup({ peers: true });
    change(3);
    timers.advance(10);
    change(2);
    timers.advance(10);
    change(1);
    timers.advance(URGENT_INTERVAL_MS);

    expect(published).toEqual([
      [0, 3],
      [URGENT_INTERVAL_MS + 20, 1],
    ]);
  });

  it('announces at once, whatever the second, and settles once the write is sent', async () => {
    const { timers, change, published, announce, flushes } = setup();
    change(1);
    timers.advance(10);
    change(2);
    await announce();

    expect(published).toEqual([
      [0, 1],
      [10, 2],
    ]);
    expect(flushes()).toBe(1);
  });

  it('alone, holds a freed slot back with every other change', () => {
    const { timers, change, published, flushes } = setup();
    change(2);
    timers.advance(100);
    change(1);

    expect(published).toEqual([[0, 2]]);
    expect(flushes()).toBe(0);
  });
});
