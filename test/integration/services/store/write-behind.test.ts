import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sumRollups } from '../../../../lib/core/analytics/rollup';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { createRollupReader } from '../../../../lib/services/analytics/rollup-reader';
import { createTraceRecorder, type TracePage } from '../../../../lib/services/analytics/trace';
import type { CounterFields, CounterSet } from '../../../../lib/services/store/counter-update';
import type { DocItem } from '../../../../lib/services/store/item';
import { dayOf } from '../../../../lib/services/store/keys';
import type { Table } from '../../../../lib/services/store/table';
import {
  createWriteBehind,
  type WriteBehindClock,
  type WriteBehindTable,
} from '../../../../lib/services/store/write-behind';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

/** A clock whose timers fire only when the test says so, and whose retry sleeps take no time. */
function manualClock() {
  const timers = new Set<() => void>();
  const clock: WriteBehindClock = {
    schedule(callback) {
      timers.add(callback);
      return () => timers.delete(callback);
    },
    sleep: async () => {},
  };
  return {
    clock,
    armed: () => timers.size,
    fire() {
      const due = [...timers];
      timers.clear();
      for (const callback of due) callback();
    },
  };
}

/** The real table, with its writes recorded, and able to fail or stall on purpose. */
function recordingTable(table: Table) {
  const putCalls: DocItem[][] = [];
  const counterCalls: { pk: string; sk: string; counters: CounterFields; set: CounterSet | undefined }[] = [];
  let failures = 0;
  let gate: Promise<void> = Promise.resolve();
  const maybeFail = () => {
    if (failures === 0) return;
    failures--;
    throw new Error('socket hang up (simulated)');
  };
  const wrapped: WriteBehindTable = {
    async batchPut(items) {
      putCalls.push([...items]);
      await gate;
      maybeFail();
      return table.batchPut(items);
    },
    async addCounters(pk, sk, counters, set, maxima) {
      counterCalls.push({ pk, sk, counters, set });
      await gate;
      maybeFail();
      return table.addCounters(pk, sk, counters, set, maxima);
    },
  };
  return {
    table: wrapped,
    putCalls,
    counterCalls,
    failNext(count: number) {
      failures = count;
    },
    /** Stalls every write until the returned function is called. */
    hold(): () => void {
      let release = () => {};
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        gate = Promise.resolve();
        release();
      };
    },
  };
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The `index`-th request of the budget test: one of 3 nodes, 2 models, 2 tags (every combination as often). */
function budgetTrace(requestId: string, startedAt: number, index: number): Trace {
  const model = index % 2 === 0 ? 'llama' : 'qwen';
  return {
    requestId,
    startedAt,
    style: 'ollama-chat',
    status: 'completed',
    requestedModel: model,
    servedModel: model,
    nodeId: `node-${index % 3}`,
    latencyMs: 12 + (index % 300),
    timeToFirstTokenMs: 5,
    promptTokens: 100,
    completionTokens: 20,
    retries: 0,
    tags: [index % 4 < 2 ? 'app:a' : 'app:b'],
    clientIp: '127.0.0.1',
  };
}

describe('write-behind', () => {
  let store: StoreFixture;

  beforeAll(async () => {
    store = await startStore('write-behind');
  });

  afterAll(async () => {
    await store.close();
  });

  it('merges increments to one key into one UpdateItem with the sum', async () => {
    const recorded = recordingTable(store.table);
    const queue = createWriteBehind(recorded.table, { clock: manualClock().clock });

    for (let index = 0; index < 10; index++) queue.add('USAGE#m', 'H#1', { requests: 1, tokens: index });
    await queue.flush();

    expect(recorded.counterCalls).toEqual([
      { pk: 'USAGE#m', sk: 'H#1', counters: { requests: 10, tokens: 45 }, set: {} },
    ]);
    expect((await store.table.getDoc('USAGE#m', 'H#1'))?.attributes).toEqual({ requests: 10, tokens: 45 });
    expect(queue.stats()).toMatchObject({ enqueued: 10, merged: 9, writeRequests: 1, itemsWritten: 1 });
  });

  it('keeps only the latest put of a key', async () => {
    const recorded = recordingTable(store.table);
    const queue = createWriteBehind(recorded.table, { clock: manualClock().clock });

    queue.put({ pk: 'DUP', sk: 'a', doc: '"v1"' });
    queue.put({ pk: 'DUP', sk: 'b', doc: '"b"' });
    queue.put({ pk: 'DUP', sk: 'a', doc: '"v2"' });
    await queue.flush();

    expect(recorded.putCalls).toHaveLength(1);
    expect(recorded.putCalls[0]?.map((item) => item.doc)).toEqual(['"v2"', '"b"']);
    expect((await store.table.getDoc('DUP', 'a'))?.doc).toBe('"v2"');
    expect(queue.stats()).toMatchObject({ merged: 1, writeRequests: 1, itemsWritten: 2 });
  });

  it('sends a full batch at once and leaves the remainder for the timer', async () => {
    const recorded = recordingTable(store.table);
    const timers = manualClock();
    const queue = createWriteBehind(recorded.table, { clock: timers.clock });

    for (let index = 0; index < 30; index++) queue.put({ pk: 'FULL', sk: `t${index}`, doc: '{}' });
    await eventually(() => queue.pending() === 5);

    expect(recorded.putCalls.map((call) => call.length)).toEqual([25]);
    expect(timers.armed()).toBe(1);
    timers.fire();
    await eventually(() => queue.pending() === 0);
    expect(recorded.putCalls.map((call) => call.length)).toEqual([25, 5]);
    expect(await store.table.queryDocs('FULL')).toHaveLength(30);
  });

  it('flushes when the timer fires', async () => {
    const recorded = recordingTable(store.table);
    const timers = manualClock();
    const queue = createWriteBehind(recorded.table, { clock: timers.clock });

    queue.put({ pk: 'TIMER', sk: 'a', doc: '{}' });
    queue.add('TIMER', 'count', { n: 2 });

    expect(recorded.putCalls).toHaveLength(0);
    timers.fire();
    await eventually(async () => (await store.table.getDoc('TIMER', 'count')) !== undefined);
    await eventually(async () => (await store.table.getDoc('TIMER', 'a')) !== undefined);
    expect(queue.pending()).toBe(0);
  });

  it("writes a source's items when the timer fires, after a touch arms it", async () => {
    const timers = manualClock();
    const queue = createWriteBehind(store.table, { clock: timers.clock });
    let records: string[] = [];
    queue.addSource({
      hasPending: () => records.length > 0,
      drain() {
        const page = { pk: 'SOURCE', sk: `page-${records.length}`, doc: JSON.stringify(records) };
        records = [];
        return [page];
      },
    });
    expect(timers.armed()).toBe(0);

    records.push('a', 'b');
    queue.touch();
    expect(timers.armed()).toBe(1);
    expect(queue.pending()).toBe(1);
    timers.fire();

    await eventually(async () => (await store.table.getDoc('SOURCE', 'page-2')) !== undefined);
    expect((await store.table.getDoc('SOURCE', 'page-2'))?.doc).toBe('["a","b"]');
    expect(queue.pending()).toBe(0);
  });

  it('drains sources on flush, and a full batch of puts leaves them for the timer', async () => {
    const recorded = recordingTable(store.table);
    const timers = manualClock();
    const queue = createWriteBehind(recorded.table, { clock: timers.clock });
    let drained = 0;
    let pending = true;
    queue.addSource({
      hasPending: () => pending,
      drain() {
        drained++;
        pending = false;
        return [{ pk: 'SOURCE2', sk: 'page', doc: '{}' }];
      },
    });
    for (let index = 0; index < 25; index++) queue.put({ pk: 'SOURCE2', sk: `t${index}`, doc: '{}' });
    await eventually(() => recorded.putCalls.length === 1);
    expect(drained).toBe(0);

    await queue.flush();

    expect(drained).toBe(1);
    expect(await store.table.getDoc('SOURCE2', 'page')).toBeDefined();
  });

  it('flushes within flushIntervalMs on the real clock', async () => {
    const queue = createWriteBehind(store.table, { flushIntervalMs: 20 });

    queue.put({ pk: 'REALTIME', sk: 'a', doc: '{}' });

    await eventually(async () => (await store.table.getDoc('REALTIME', 'a')) !== undefined, 1000);
    await queue.close();
  });

  it('flushes on close and stops its timer', async () => {
    const timers = manualClock();
    const queue = createWriteBehind(store.table, { clock: timers.clock });
    queue.put({ pk: 'CLOSE', sk: 'a', doc: '{}' });
    expect(timers.armed()).toBe(1);

    await queue.close();

    expect(timers.armed()).toBe(0);
    expect(await store.table.getDoc('CLOSE', 'a')).toBeDefined();
  });

  it('says it is closed once close was called, so periodic writers stop', async () => {
    const queue = createWriteBehind(store.table, { clock: manualClock().clock });
    expect(queue.isClosed()).toBe(false);

    await queue.close();

    expect(queue.isClosed()).toBe(true);
  });

  it('retries a failed flush and loses nothing', async () => {
    const recorded = recordingTable(store.table);
    const queue = createWriteBehind(recorded.table, { clock: manualClock().clock });
    queue.put({ pk: 'RETRY', sk: 'a', doc: '{}' });
    queue.put({ pk: 'RETRY', sk: 'b', doc: '{}' });
    queue.add('RETRY', 'count', { n: 5 });
    recorded.failNext(2);

    await queue.flush();

    expect(await store.table.queryDocs('RETRY')).toHaveLength(3);
    expect((await store.table.getDoc('RETRY', 'count'))?.attributes).toEqual({ n: 5 });
    expect(queue.stats()).toMatchObject({ failedFlushes: 1, retries: 2, itemsWritten: 3, writeRequests: 4 });
  });

  it('reports a failed background flush and retries it on the next timer', async () => {
    const recorded = recordingTable(store.table);
    const timers = manualClock();
    const errors: unknown[] = [];
    const queue = createWriteBehind(recorded.table, { clock: timers.clock, onError: (error) => errors.push(error) });
    queue.put({ pk: 'BACKGROUND', sk: 'a', doc: '{}' });
    recorded.failNext(1);

    timers.fire();
    await eventually(() => errors.length === 1 && timers.armed() === 1);
    expect(queue.pending()).toBe(1);
    timers.fire();

    await eventually(() => queue.pending() === 0);
    expect(await store.table.getDoc('BACKGROUND', 'a')).toBeDefined();
  });

  it('retries at once when told the table answers again, instead of waiting out its backoff', async () => {
    const recorded = recordingTable(store.table);
    const timers = manualClock();
    const errors: unknown[] = [];
    const queue = createWriteBehind(recorded.table, { clock: timers.clock, onError: (error) => errors.push(error) });
    queue.retryNow(); // nothing failed: nothing to do
    expect(recorded.putCalls).toHaveLength(0);
    queue.put({ pk: 'BACK', sk: 'a', doc: '{}' });
    recorded.failNext(1);
    timers.fire();
    await eventually(() => errors.length === 1 && timers.armed() === 1);

    queue.retryNow();
    await eventually(() => queue.pending() === 0);
    expect(timers.armed()).toBe(0);
    expect(recorded.putCalls).toHaveLength(2);
    expect(await store.table.getDoc('BACK', 'a')).toBeDefined();
  });

  it('keeps writes that arrive while a flush is in flight, and a newer put beats a failed older one', async () => {
    const recorded = recordingTable(store.table);
    const queue = createWriteBehind(recorded.table, { clock: manualClock().clock });
    queue.put({ pk: 'INFLIGHT', sk: 'a', doc: '"old"' });
    queue.add('INFLIGHT', 'count', { n: 1 });
    const release = recorded.hold();
    recorded.failNext(2);

    const flushing = queue.flush();
    await eventually(() => recorded.putCalls.length === 1);
    queue.put({ pk: 'INFLIGHT', sk: 'a', doc: '"new"' });
    queue.put({ pk: 'INFLIGHT', sk: 'b', doc: '"b"' });
    queue.add('INFLIGHT', 'count', { n: 10 });
    expect(queue.pending()).toBe(5);
    release();
    await flushing;
    await queue.flush();

    expect((await store.table.getDoc('INFLIGHT', 'a'))?.doc).toBe('"new"');
    expect((await store.table.getDoc('INFLIGHT', 'b'))?.doc).toBe('"b"');
    expect((await store.table.getDoc('INFLIGHT', 'count'))?.attributes).toEqual({ n: 11 });
    expect(queue.pending()).toBe(0);
  });

  it('rejects only the one item the table refuses, after isolating it', async () => {
    const errors: unknown[] = [];
    const queue = createWriteBehind(store.table, {
      clock: manualClock().clock,
      onError: (error) => errors.push(error),
    });
    queue.put({ pk: 'REJECT', sk: 'good1', doc: '{}' });
    queue.put({ pk: 'REJECT', sk: '', doc: '{}' }); // an empty sort key is invalid
    queue.put({ pk: 'REJECT', sk: 'good2', doc: '{}' });

    await queue.flush();

    expect(await store.table.queryDocs('REJECT')).toHaveLength(2);
    expect(queue.stats()).toMatchObject({ rejected: 1, itemsWritten: 2 });
    expect(String(errors[0])).toMatch(/rejected the put of REJECT \/ /);
    expect(queue.pending()).toBe(0);
  });

  it('needs at most 0.1 write requests per routed request, with traces in pages and rollups summed per key', async () => {
    const timers = manualClock();
    const queue = createWriteBehind(store.table, { clock: timers.clock });
    const traces = createTraceRecorder(queue, { instanceId: 'budget' });
    const routed = 2000;
    // Now: traces expire after 30 days, and reads skip expired items.
    const startedAt = Date.now();

    // 3 nodes × 2 models × 2 tags: each drain writes at most 20 rollup keys (the hour's fleet, 2 models
    // and 3 nodes, the day's 6 node × models and 2 tags, 6 all-time totals). 500 requests a "second".
    for (let index = 0; index < routed; index++) {
      traces.record(budgetTrace(`req-${index}`, startedAt + index, index));
      if (index % 500 === 499) timers.fire();
      if (index % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
    }
    await queue.flush();

    const { writeRequests } = queue.stats();
    expect(writeRequests / routed).toBeLessThanOrEqual(0.1);
    const pages = await store.table.queryDocs(`TRACE#${dayOf(startedAt)}`);
    const kept = pages
      .filter((page) => page.sk.includes('#budget#'))
      .flatMap((page) => (JSON.parse(page.doc ?? '{}') as TracePage).traces);
    expect(kept.map((trace) => trace.requestId)).toEqual(Array.from({ length: routed }, (_, index) => `req-${index}`));
    const window = { startMs: startedAt, endMs: startedAt + routed };
    const reader = createRollupReader(store.table);
    const fleet = sumRollups((await reader.fleetHours(window)).map((row) => row.rollup));
    expect(fleet.counters.requests).toBe(routed);
    expect(fleet.counters.prompt_tokens).toBe(routed * 100);
    expect(fleet.maxima.last_at).toBe(startedAt + routed - 1);
    const perNodeModel = (await reader.nodeModelDays(window)).map((row) => [
      row.nodeId,
      row.model,
      row.rollup.counters.requests,
    ]);
    // 2,000 = 6 × 333 + 2: indices ≡ 0 (node-0, llama) and ≡ 1 (node-1, qwen) mod 6 come once more.
    expect(perNodeModel.sort()).toEqual([
      ['node-0', 'llama', 334],
      ['node-0', 'qwen', 333],
      ['node-1', 'llama', 333],
      ['node-1', 'qwen', 334],
      ['node-2', 'llama', 333],
      ['node-2', 'qwen', 333],
    ]);
    const tags = (await reader.tagDays(window)).map((row) => [row.tag, row.rollup.counters.requests]);
    expect(tags.sort()).toEqual([
      ['app:a', routed / 2],
      ['app:b', routed / 2],
    ]);
  });
});
