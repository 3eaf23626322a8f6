import { describe, expect, it } from '@jest/globals';
import { createQueueManager, type NodeModelQueue } from '../../../../lib/services/dispatch/queue-manager';
import {
  createSharedSlots,
  type PublishedClaim,
  type PublishedQueues,
  SEEN_WITHIN_MS,
  SHARE_TICK_MS,
} from '../../../../lib/services/dispatch/shared-slots';
import { manualTimers } from '../../../helpers/manual-timers';

const MODEL = 'llama3.2:3b';
const LIMIT = 4;
const TTL_MS = 10_000;

function setup() {
  const timers = manualTimers();
  let slots: ReturnType<typeof createSharedSlots> | undefined;
  const queues = createQueueManager({
    schedule: timers.schedule,
    clock: timers.clock,
    onCreate: (queue) => slots?.prepare(queue),
    onWait: (queue) => slots?.reconsider(queue),
  });
  let refreshes = 0;
  slots = createSharedSlots({
    instanceId: 'self',
    queues,
    refresh: async () => {
      refreshes += 1;
    },
    clock: timers.clock,
    schedule: timers.schedule,
    maxAgeMs: TTL_MS,
  });
  const queue = (): NodeModelQueue | undefined => {
    let found: NodeModelQueue | undefined;
    queues.forEachQueue((each) => {
      if (each.nodeId === 'gpu' && each.model === MODEL) found = each;
    });
    return found;
  };
  /** Takes free slots on gpu until none is left; how many it got. */
  const takeAll = () => {
    const taken = [];
    for (let slot = queues.tryAcquire('gpu', MODEL, LIMIT); slot !== undefined; ) {
      taken.push(slot);
      slot = queues.tryAcquire('gpu', MODEL, LIMIT);
    }
    return taken;
  };
  return { timers, queues, slots, queue, takeAll, refreshes: () => refreshes };
}

const claim = (inFlight: number, pending: number, share?: number): PublishedClaim => ({
  nodeId: 'gpu',
  model: MODEL,
  pending,
  inFlight,
  concurrency: LIMIT,
  ...(share === undefined ? {} : { share }),
});

const other = (at: number, ...entries: PublishedClaim[]): PublishedQueues => ({ instanceId: 'other', at, entries });

describe('createSharedSlots', () => {
  it('leaves a lone instance its whole limit, with no read of the table first', () => {
    const { takeAll, queue } = setup();

    expect(takeAll()).toHaveLength(LIMIT);
    expect(queue()?.share).toBeUndefined();
    expect(queue()?.state().share).toBeUndefined();
  });

  it('treats its own publication as no other instance', () => {
    const { timers, slots, takeAll } = setup();
    slots.update([{ instanceId: 'self', at: timers.clock(), entries: [claim(4, 0)] }]);

    expect(takeAll()).toHaveLength(LIMIT);
  });

  it('gives a queue made while another instance claims the node only what is left, one slot to start', () => {
    const { timers, slots, takeAll, queue } = setup();
    slots.update([other(timers.clock(), claim(1, 0, 1))]);

    // Nothing of this instance's was published yet: it grows one slot beyond that, not to its share.
    expect(takeAll()).toHaveLength(1);
    expect(queue()?.state().share).toBe(1);
  });

  it('waits for an instance that gave slots up to be seen within its share, and never cuts a running request', async () => {
    const { timers, slots, queues, queue, takeAll } = setup();
    const held = takeAll();
    expect(held).toHaveLength(LIMIT);
    // Long enough ago that the other instance has seen this one claim all four.
    timers.advance(SEEN_WITHIN_MS + 1);
    const waiting = queues.acquire('gpu', MODEL, LIMIT);

    // The other instance asks for slots while this one runs all four: this one's share is two now,
    // but all four keep running, and its waiter waits.
    slots.update([other(timers.clock(), claim(0, 6, 0))]);
    expect(queue()?.share).toBe(2);
    expect(queue()?.inFlight).toBe(LIMIT);
    held[0]?.release();
    held[1]?.release();
    expect(queue()?.inFlight).toBe(2);
    held[2]?.release();
    // Below its share again: its waiter gets the freed place.
    await expect(waiting).resolves.toMatchObject({ nodeId: 'gpu' });
    expect(queue()?.inFlight).toBe(2);
  });

  it('lets a waiter in once the other instance is seen to have drained', async () => {
    const { timers, slots, queues, queue } = setup();
    // The other instance ran alone, all four slots busy, when this one's first request comes.
    slots.update([other(timers.clock(), claim(4, 2))]);
    let granted = false;
    const waiting = queues.acquire('gpu', MODEL, LIMIT).then((slot) => {
      granted = true;
      return slot;
    });
    await Promise.resolve();
    expect(queue()?.share).toBe(0);
    expect(granted).toBe(false);

    // Its next publication: it gave up a slot and runs within what is left to it.
    slots.update([other(timers.clock(), claim(2, 0, 2))]);

    await expect(waiting).resolves.toMatchObject({ nodeId: 'gpu' });
    expect(queue()?.inFlight).toBe(1);
  });

  it('counts an instance whose publication is older than the TTL as gone', () => {
    const { timers, slots, queue, takeAll } = setup();
    takeAll();
    slots.update([other(timers.clock(), claim(4, 4, 4))]);
    expect(queue()?.share).toBe(0);

    timers.advance(TTL_MS + SHARE_TICK_MS);

    expect(queue()?.share).toBeUndefined();
  });

  it('re-reads the table every tick from its first queue on', () => {
    const { timers, takeAll, refreshes } = setup();
    expect(refreshes()).toBe(0);
    takeAll();

    timers.advance(SHARE_TICK_MS);
    timers.advance(SHARE_TICK_MS);

    expect(refreshes()).toBe(2);
  });
});
