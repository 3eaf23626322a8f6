import { describe, expect, it } from '@jest/globals';
import { slotShares } from '../../../../lib/core/fleet/slot-shares';
import { createQueueManager, type Slot } from '../../../../lib/services/dispatch/queue-manager';
import {
  createSharedSlots,
  type PublishedQueues,
  REREAD_MS,
  ROTATION_MS,
  SETTLE_MS,
  SHARE_TICK_MS,
  type SharedSlots,
} from '../../../../lib/services/dispatch/shared-slots';
import { manualTimers } from '../../../helpers/manual-timers';

const MODEL = 'llama3.2:3b';
const MAX_AGE_MS = 10_000;

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One instance ('self') with its queues, its shares, and a table whose answer the test sets. */
function setup() {
  const timers = manualTimers();
  // The rotation rounds start with the test's clock, so each test knows which round it is in.
  while (timers.clock() % ROTATION_MS !== 0) timers.advance(1);
  let slots: SharedSlots | undefined;
  const queues = createQueueManager({
    schedule: timers.schedule,
    clock: timers.clock,
    onCreate: (queue) => slots?.prepare(queue),
    onWait: (queue) => slots?.reconsider(queue),
    onIdle: (queue) => slots?.idle(queue),
  });
  /** What a read of the table answers: the other instance's publication. */
  let table: PublishedQueues[] = [];
  const reads: number[] = [];
  const announcements: number[] = [];
  slots = createSharedSlots({
    instanceId: 'self',
    queues,
    refresh: async () => {
      const readAt = timers.clock();
      reads.push(readAt);
      slots?.update(table, readAt);
    },
    announce: async () => {
      announcements.push(timers.clock());
    },
    clock: timers.clock,
    schedule: timers.schedule,
    maxAgeMs: MAX_AGE_MS,
  });
  const other = (id: string, pending: number, inFlight: number, at = timers.clock()): PublishedQueues => ({
    instanceId: id,
    at,
    entries: [{ nodeId: 'gpu1', model: MODEL, pending, inFlight }],
  });
  /** The table now holds `published`; `read` also delivers it as a read would. */
  const publish = (published: PublishedQueues[], read = true) => {
    table = published;
    if (read) slots?.update(published, timers.clock());
  };
  /** Moves the clock by `ms` in steps, letting promises run at each. */
  const pass = async (ms: number, step = 10) => {
    for (let at = 0; at < ms; at += step) {
      timers.advance(step);
      await settle();
    }
  };
  return { timers, queues, slots, other, publish, reads, announcements, pass };
}

describe('createSharedSlots', () => {
  it('runs the whole limit at once when a recent read saw no other instance, and writes nothing', async () => {
    const { queues, publish, announcements } = setup();
    publish([]);
    const held = await Promise.all([1, 2, 3, 4].map(() => queues.acquire('gpu1', MODEL, 4)));
    expect(held).toHaveLength(4);
    expect(announcements).toEqual([]);
  });

  it('runs one request on a view older than a tick, until the read it asks for lands', async () => {
    const { queues, publish, reads, pass, announcements } = setup();
    publish([]);
    await pass(SHARE_TICK_MS + 10, 100);
    const granted: Slot[] = [];
    for (let i = 0; i < 4; i += 1) void queues.acquire('gpu1', MODEL, 4).then((slot) => granted.push(slot));
    await settle();
    expect(granted).toHaveLength(1);
    expect(reads).toEqual([]);

    await pass(10);
    expect(reads).toHaveLength(1);
    expect(granted).toHaveLength(4);
    expect(announcements).toEqual([]);
  });

  it('starts with one request while another instance is live, and runs the limit once a later read sees nobody else asking', async () => {
    const { queues, other, publish, announcements, reads, pass, timers } = setup();
    publish([other('b', 0, 0)]);
    const granted: Slot[] = [];
    for (let i = 0; i < 4; i += 1) void queues.acquire('gpu1', MODEL, 4).then((slot) => granted.push(slot));
    await settle();
    expect(granted).toHaveLength(1);
    // Held back by its start: announced at once.
    const started = timers.clock();
    expect(announcements).toEqual([started]);

    await pass(SETTLE_MS + REREAD_MS);
    expect(granted).toHaveLength(4);
    // Confirmed by a read that began SETTLE_MS after the announcement, and what it runs now published.
    expect(reads.some((at) => at >= started + SETTLE_MS)).toBe(true);
    expect(announcements).toHaveLength(2);
  });

  it('takes its share, not the limit, when the confirming read shows the other asking too', async () => {
    const { queues, other, publish, pass } = setup();
    publish([other('b', 0, 0)]);
    const granted: Slot[] = [];
    for (let i = 0; i < 4; i += 1) void queues.acquire('gpu1', MODEL, 4).then((slot) => granted.push(slot));
    await settle();
    // b started at the same moment, on its one request, and asks for more.
    publish([other('b', 3, 1)], false);
    await pass(SETTLE_MS + REREAD_MS);
    // Its share is 2 and b is due 2: one more.
    expect(granted).toHaveLength(2);
  });

  it('announces a start at a limit of 1 once requests wait, and gives way once it sees the other asking', async () => {
    const { queues, other, publish, announcements, pass } = setup();
    publish([other('b', 0, 0)]);
    const granted: Slot[] = [];
    for (let i = 0; i < 3; i += 1) void queues.acquire('gpu1', MODEL, 1).then((slot) => granted.push(slot));
    await settle();
    // One runs; the others wait for the limit, and the start is announced for b to see.
    expect(granted).toHaveLength(1);
    expect(announcements).toHaveLength(1);

    // b started too, on its one request, and asks for more: the rotation gives this round's slot to one.
    publish([other('b', 3, 1)], false);
    await pass(SETTLE_MS + REREAD_MS);
    const share = queues.entries()[0]?.inFlight;
    granted[0]?.release();
    await pass(REREAD_MS);
    // b still runs its request: nothing more starts here whatever the split says.
    expect(granted).toHaveLength(1);
    expect(share).toBe(1);
  });

  it('starts anew, with one request, after its queue went idle', async () => {
    const { queues, other, publish, pass, announcements } = setup();
    publish([other('b', 0, 0)]);
    const first: Slot[] = [];
    for (let i = 0; i < 2; i += 1) void queues.acquire('gpu1', MODEL, 4).then((slot) => first.push(slot));
    await pass(SETTLE_MS + REREAD_MS);
    expect(first).toHaveLength(2);
    for (const slot of first) slot.release();
    publish([other('b', 0, 0)]);
    const granted: Slot[] = [];
    for (let i = 0; i < 3; i += 1) void queues.acquire('gpu1', MODEL, 4).then((slot) => granted.push(slot));
    await settle();
    expect(granted).toHaveLength(1);
    expect(announcements).toHaveLength(3);
  });

  it('runs only its share of a node another instance loads, and leaves it the slots it runs', async () => {
    const { queues, other, publish, pass } = setup();
    publish([other('b', 5, 3)]);
    const granted: Slot[] = [];
    for (let i = 0; i < 4; i += 1) void queues.acquire('gpu1', MODEL, 4).then((slot) => granted.push(slot));
    await pass(SETTLE_MS + REREAD_MS);
    // Its share is 2, but b still runs 3 of the 4 slots: one.
    expect(granted).toHaveLength(1);

    publish([other('b', 5, 2)]);
    await settle();
    expect(granted).toHaveLength(2);
    expect(queues.entries()[0]).toMatchObject({ inFlight: 2, pending: 2 });
  });

  it('reads the table again soon while a request is held back, and lets it go once the slot is seen free', async () => {
    const { queues, other, publish, reads, pass } = setup();
    publish([other('b', 0, 1)]);
    let granted = false;
    void queues.acquire('gpu1', MODEL, 1).then(() => {
      granted = true;
    });
    await settle();
    expect(granted).toBe(false);

    // b finished; the table says so, but nothing has read it yet.
    publish([other('b', 0, 0)], false);
    await pass(REREAD_MS);
    expect(reads.length).toBeGreaterThanOrEqual(1);
    expect(granted).toBe(true);
  });

  it('keeps reading while held back, not faster than every REREAD_MS', async () => {
    const { queues, other, publish, reads, pass } = setup();
    publish([other('b', 3, 1)]);
    void queues.acquire('gpu1', MODEL, 1);
    void queues.acquire('gpu1', MODEL, 1);
    await pass(500, REREAD_MS / 2);
    // 500 ms held back: a read every 100 ms, give or take the first.
    expect(reads.length).toBeGreaterThanOrEqual(4);
    expect(reads.length).toBeLessThanOrEqual(6);
  });

  it('hands a single slot between two loaded instances as the rotation moves on', async () => {
    const { timers, queues, other, publish } = setup();
    publish([other('b', 3, 0)]);
    const granted: Slot[] = [];
    for (let i = 0; i < 3; i += 1) void queues.acquire('gpu1', MODEL, 1).then((slot) => granted.push(slot));
    await settle();
    // Over two rounds each instance holds the slot in one: the queue runs in one round and not the other.
    const rounds: number[] = [];
    for (let step = 0; step < (2 * ROTATION_MS) / SHARE_TICK_MS; step += 1) {
      // Each request holds the slot for under a tick. b runs its request in its own rounds only.
      const round = Math.floor(timers.clock() / ROTATION_MS);
      const claimants = [
        { id: 'self', demand: 3 },
        { id: 'b', demand: 3 },
      ];
      const bHolds = slotShares(1, claimants, round).get('b') === 1;
      publish([other('b', 3, bHolds ? 1 : 0)], false);
      timers.advance(SHARE_TICK_MS / 2);
      await settle();
      if (granted.length > 0) rounds.push(round);
      for (const slot of granted.splice(0)) slot.release();
      void queues.acquire('gpu1', MODEL, 1).then((slot) => granted.push(slot));
      publish([other('b', 3, 0)], false);
      timers.advance(SHARE_TICK_MS / 2);
      await settle();
    }
    // It ran in exactly one of the two rounds, and in each of that round's ticks.
    expect(new Set(rounds).size).toBe(1);
    expect(rounds.length).toBeGreaterThanOrEqual(ROTATION_MS / SHARE_TICK_MS - 1);
  });

  it('forgets an instance whose publication expired', async () => {
    const { timers, queues, other, publish, slots, pass } = setup();
    publish([other('b', 4, 4)]);
    expect(slots?.hasPeers()).toBe(true);
    timers.advance(MAX_AGE_MS + 1);
    const held: Slot[] = [];
    for (let i = 0; i < 2; i += 1) void queues.acquire('gpu1', MODEL, 4).then((slot) => held.push(slot));
    await pass(10);
    expect(held).toHaveLength(2);
    expect(slots?.hasPeers()).toBe(false);
  });
});
