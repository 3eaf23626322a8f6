import { describe, expect, it } from '@jest/globals';
import { ServiceUnavailableError } from '../../../../lib/core/errors';
import { concurrencyLimit } from '../../../../lib/core/scoring/concurrency-limit';
import {
  createQueueManager,
  type QueueManagerOptions,
  type Slot,
} from '../../../../lib/services/dispatch/queue-manager';
import { RequestAbortedError } from '../../../../lib/services/dispatch/request-aborted';
import { manualTimers } from '../../../helpers/manual-timers';

const MODEL = 'llama3.2:3b';

function setup(options: Omit<QueueManagerOptions, 'schedule' | 'clock'> = {}) {
  const timers = manualTimers();
  const queues = createQueueManager({ ...options, schedule: timers.schedule, clock: timers.clock });
  return { queues, timers };
}

/** Lets resolved acquisitions run their callbacks. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('createQueueManager', () => {
  it('hands out slots at once up to the limit', async () => {
    const { queues } = setup();
    const first = await queues.acquire('gpu1', MODEL, 2);
    const second = await queues.acquire('gpu1', MODEL, 2);
    expect([first.nodeId, second.model]).toEqual(['gpu1', MODEL]);
    expect(queues.depth('gpu1', MODEL)).toBe(2);
    expect(queues.entries()).toEqual([
      expect.objectContaining({ nodeId: 'gpu1', model: MODEL, pending: 0, inFlight: 2, concurrency: 2 }),
    ]);
  });

  it('holds a slot until it is released, then gives it to the first waiter', async () => {
    const { queues } = setup();
    const holder = await queues.acquire('gpu1', MODEL, 1);
    let granted: Slot | undefined;
    const waiting = queues.acquire('gpu1', MODEL, 1).then((slot) => {
      granted = slot;
      return slot;
    });
    await settle();
    expect(granted).toBeUndefined();
    expect(queues.entries()[0]).toMatchObject({ pending: 1, inFlight: 1 });
    expect(queues.depth('gpu1', MODEL)).toBe(2);
    holder.release();
    await waiting;
    expect(granted).toBeDefined();
    expect(queues.entries()[0]).toMatchObject({ pending: 0, inFlight: 1, completed: 1 });
  });

  it('serves waiters by priority, then in turn across applications, with each waiter counted where it waits', async () => {
    const { queues } = setup({ line: { agingMs: 30_000, weightOf: () => 1 } });
    const holder = await queues.acquire('gpu1', MODEL, 1);
    const order: string[] = [];
    const ask = (name: string, priority: 'high' | 'normal' | 'low', app: string) =>
      queues.acquire('gpu1', MODEL, 1, undefined, { priority, app }).then((slot) => {
        order.push(name);
        slot.release();
      });
    const waits = [
      ask('batch-1', 'low', 'tag:batch'),
      ask('batch-2', 'low', 'tag:batch'),
      ask('chat-1', 'normal', 'tag:chat'),
      ask('batch-3', 'normal', 'tag:batch'),
      ask('chat-2', 'normal', 'tag:chat'),
      ask('agent-1', 'high', 'tag:agent'),
    ];
    await settle();
    let counts: unknown;
    queues.forEachQueue((queue) => {
      counts = queue.waitCounts();
    });

    holder.release();
    await Promise.all(waits);

    expect(counts).toEqual({
      byPriority: { high: 1, normal: 3, low: 2 },
      byApp: new Map([
        ['tag:batch', 3],
        ['tag:chat', 2],
        ['tag:agent', 1],
      ]),
    });
    // High first; the normal ones in turn (chat, batch, chat: batch's low ones do not count as its turns
    // until served); the low ones last.
    expect(order).toEqual(['agent-1', 'chat-1', 'batch-3', 'chat-2', 'batch-1', 'batch-2']);
  });

  it('serves waiters in arrival order', async () => {
    const { queues } = setup();
    const holder = await queues.acquire('gpu1', MODEL, 1);
    const order: string[] = [];
    const waits = ['a', 'b', 'c'].map((name) =>
      queues.acquire('gpu1', MODEL, 1).then((slot) => {
        order.push(name);
        return slot;
      }),
    );
    holder.release();
    for (const wait of waits) (await wait).release();
    expect(order).toEqual(['a', 'b', 'c']);
    expect(queues.depth('gpu1', MODEL)).toBe(0);
  });

  it('takes a free slot at once with tryAcquire, never one a waiter is owed', async () => {
    const { queues } = setup();
    const first = queues.tryAcquire('gpu1', MODEL, 1);
    expect(first).toMatchObject({ nodeId: 'gpu1', model: MODEL });
    expect(queues.tryAcquire('gpu1', MODEL, 1)).toBeUndefined();

    const waiting = queues.acquire('gpu1', MODEL, 1);
    first?.release();
    // The freed slot went to the waiter, who came first.
    expect(queues.tryAcquire('gpu1', MODEL, 1)).toBeUndefined();
    (await waiting).release();
    expect(queues.tryAcquire('gpu1', MODEL, 1)).toBeDefined();
    expect(queues.depth('gpu1', MODEL)).toBe(1);
  });

  it('keeps node:model queues apart', async () => {
    const { queues } = setup();
    await queues.acquire('gpu1', MODEL, 1);
    await queues.acquire('gpu2', MODEL, 1);
    await queues.acquire('gpu1', 'qwen3:8b', 1);
    expect(queues.depth('gpu1', MODEL)).toBe(1);
    expect(queues.depth('gpu2', MODEL)).toBe(1);
    expect(queues.depth('gpu1', 'qwen3:8b')).toBe(1);
    expect(queues.depth('gpu3', MODEL)).toBe(0);
  });

  it('releases a slot once, however often release is called', async () => {
    const { queues } = setup();
    const slot = await queues.acquire('gpu1', MODEL, 2);
    await queues.acquire('gpu1', MODEL, 2);
    slot.release();
    slot.release('failed');
    expect(queues.entries()[0]).toMatchObject({ inFlight: 1, completed: 1, failed: 0 });
  });

  it('counts how each slot use ended', async () => {
    const { queues } = setup();
    (await queues.acquire('gpu1', MODEL, 3)).release('completed');
    (await queues.acquire('gpu1', MODEL, 3)).release('failed');
    (await queues.acquire('gpu1', MODEL, 3)).release('cancelled');
    expect(queues.entries()[0]).toMatchObject({ completed: 1, failed: 1, cancelled: 1, inFlight: 0 });
  });

  it('turns a request away with 503 and Retry-After when the queue is full', async () => {
    const { queues } = setup({ maxPending: 2 });
    await queues.acquire('gpu1', MODEL, 1);
    void queues.acquire('gpu1', MODEL, 1);
    void queues.acquire('gpu1', MODEL, 1);
    const full = queues.acquire('gpu1', MODEL, 1);
    await expect(full).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(full).rejects.toMatchObject({ status: 503, code: 'queue_full', retryAfterSeconds: 1 });
    expect(queues.entries()[0]).toMatchObject({ pending: 2, inFlight: 1, rejected: 1 });
  });

  it('estimates Retry-After from how long slots are held', async () => {
    const { queues, timers } = setup({ maxPending: 1 });
    const first = await queues.acquire('gpu1', MODEL, 1);
    timers.advance(10_000);
    first.release();
    await queues.acquire('gpu1', MODEL, 1);
    void queues.acquire('gpu1', MODEL, 1);
    // One slot held ~10 s on average, one waiter ahead: about 20 s.
    await expect(queues.acquire('gpu1', MODEL, 1)).rejects.toMatchObject({ retryAfterSeconds: 20 });
  });

  it('gives up on a wait that outlasts the time-out with 503', async () => {
    const { queues, timers } = setup({ timeoutMs: 5000 });
    await queues.acquire('gpu1', MODEL, 1);
    const waiting = queues.acquire('gpu1', MODEL, 1);
    timers.advance(4999);
    expect(queues.depth('gpu1', MODEL)).toBe(2);
    timers.advance(1);
    await expect(waiting).rejects.toMatchObject({ status: 503, code: 'queue_timeout' });
    expect(queues.entries()[0]).toMatchObject({ pending: 0, inFlight: 1, timedOut: 1 });
  });

  it('cancels the time-out of a waiter that got its slot', async () => {
    const { queues, timers } = setup({ timeoutMs: 5000 });
    const holder = await queues.acquire('gpu1', MODEL, 1);
    const waiting = queues.acquire('gpu1', MODEL, 1);
    holder.release();
    const slot = await waiting;
    timers.advance(10_000);
    expect(queues.entries()[0]).toMatchObject({ inFlight: 1, timedOut: 0 });
    slot.release();
  });

  it('takes a waiter whose client went away out of the queue at once', async () => {
    const { queues } = setup();
    const holder = await queues.acquire('gpu1', MODEL, 1);
    const controller = new AbortController();
    const leaving = queues.acquire('gpu1', MODEL, 1, controller.signal);
    const staying = queues.acquire('gpu1', MODEL, 1);
    expect(queues.depth('gpu1', MODEL)).toBe(3);
    controller.abort();
    expect(queues.depth('gpu1', MODEL)).toBe(2);
    await expect(leaving).rejects.toBeInstanceOf(RequestAbortedError);
    holder.release();
    const slot = await staying;
    expect(queues.entries()[0]).toMatchObject({ pending: 0, inFlight: 1 });
    slot.release();
  });

  it('reports every change of a depth, whatever caused it', async () => {
    const depths: number[] = [];
    const { queues, timers } = setup({ timeoutMs: 1000, onChange: () => depths.push(queues.depth('gpu1', MODEL)) });
    const holder = await queues.acquire('gpu1', MODEL, 1);
    const controller = new AbortController();
    const leaving = queues.acquire('gpu1', MODEL, 1, controller.signal).catch(() => undefined);
    const timingOut = queues.acquire('gpu1', MODEL, 1).catch(() => undefined);
    controller.abort();
    await leaving;
    timers.advance(1000);
    await timingOut;
    holder.release('cancelled');

    expect(depths).toEqual([1, 2, 3, 2, 1, 0]);
  });

  it('refuses at once a request whose client already went away', async () => {
    const { queues } = setup();
    const controller = new AbortController();
    controller.abort();
    await expect(queues.acquire('gpu1', MODEL, 1, controller.signal)).rejects.toMatchObject({ status: 499 });
    expect(queues.depth('gpu1', MODEL)).toBe(0);
  });

  it('admits waiters at once, in order, when the limit goes up', async () => {
    const { queues } = setup();
    await queues.acquire('gpu1', MODEL, 1);
    const order: string[] = [];
    const first = queues.acquire('gpu1', MODEL, 1).then(() => order.push('first'));
    await queues.acquire('gpu1', MODEL, 3);
    await first;
    expect(order).toEqual(['first']);
    expect(queues.entries()[0]).toMatchObject({ pending: 0, inFlight: 3, concurrency: 3 });
  });

  it('treats a nonsense limit as 1', async () => {
    const { queues } = setup();
    await queues.acquire('gpu1', MODEL, 0);
    const waiting = queues.acquire('gpu1', MODEL, Number.NaN);
    expect(queues.entries()[0]).toMatchObject({ pending: 1, inFlight: 1, concurrency: 1 });
    void waiting;
  });

  it('sends away every waiter of a node, whatever the model, and keeps the slots held and other nodes', async () => {
    const { queues, timers } = setup();
    const held = [await queues.acquire('gpu1', MODEL, 1), await queues.acquire('gpu1', 'qwen3:8b', 1)];
    const other = await queues.acquire('gpu2', MODEL, 1);
    const waiting = [queues.acquire('gpu1', MODEL, 1), queues.acquire('gpu1', 'qwen3:8b', 1)];
    const elsewhere = queues.acquire('gpu2', MODEL, 1);
    await settle();

    const evicted = queues.evict('gpu1', (model) => new Error(`moved off ${model}`));
    const outcomes = await Promise.allSettled(waiting);

    expect(evicted).toBe(2);
    expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : 'granted'))).toEqual([
      `Error: moved off ${MODEL}`,
      'Error: moved off qwen3:8b',
    ]);
    expect(queues.depth('gpu1', MODEL)).toBe(1);
    expect(queues.depth('gpu2', MODEL)).toBe(2);
    other.release();
    (await elsewhere).release();
    // An evicted waiter's time-out is cancelled with it.
    timers.advance(120_000);
    expect(queues.entries().map((entry) => entry.timedOut)).toEqual([0, 0, 0]);
    for (const slot of held) slot.release();
  });

  it('visits only the busy queues of a model', async () => {
    const { queues } = setup();
    const slot = await queues.acquire('gpu1', MODEL, 1);
    void queues.acquire('gpu1', MODEL, 1);
    (await queues.acquire('gpu2', MODEL, 1)).release();
    await queues.acquire('gpu3', 'qwen3:8b', 1);
    const visited: [string, number][] = [];
    queues.forEachBusy(MODEL, (nodeId, depth) => visited.push([nodeId, depth]));
    expect(visited).toEqual([['gpu1', 2]]);
    slot.release();
  });
});

describe('concurrencyLimit', () => {
  it('is the node reported parallelism, 1 when it reports nothing usable', () => {
    expect(concurrencyLimit({ id: 'a', numParallel: 4 })).toBe(4);
    expect(concurrencyLimit({ id: 'a', numParallel: 0 })).toBe(1);
  });

  it('is the per-node override when one is configured', () => {
    const overrides = new Map([
      ['a', 2],
      ['b', 0],
    ]);
    expect(concurrencyLimit({ id: 'a', numParallel: 4 }, overrides)).toBe(2);
    expect(concurrencyLimit({ id: 'b', numParallel: 4 }, overrides)).toBe(4);
  });
});
