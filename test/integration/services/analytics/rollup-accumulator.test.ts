import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bucketOf } from '../../../../lib/core/analytics/histogram';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { MAX_WINDOW_DAYS, MAX_WINDOW_HOURS } from '../../../../lib/core/analytics/window';
import { createRollupReader } from '../../../../lib/services/analytics/rollup-reader';
import { createTraceRecorder, type TracePage } from '../../../../lib/services/analytics/trace';
import { dayOf, dayRollupKey, hourRollupKey, totalRollupKey } from '../../../../lib/services/store/keys';
import { openTable } from '../../../../lib/services/store/table';
import { createWriteBehind } from '../../../../lib/services/store/write-behind';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

let store: StoreFixture;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** The start of the current UTC hour: every seeded trace falls in it, and nothing has expired. */
const H = Math.floor(Date.now() / HOUR) * HOUR;

beforeAll(async () => {
  store = await startStore('rollup-accumulator');
});

afterAll(async () => {
  await store.close();
});

const trace = (requestId: string, overrides: Partial<Trace>): Trace => ({
  requestId,
  startedAt: H,
  style: 'openai-chat',
  status: 'completed',
  requestedModel: 'm1',
  servedModel: 'm1',
  nodeId: 'gpu-1',
  latencyMs: 100,
  retries: 0,
  tags: ['app:chat'],
  clientIp: '127.0.0.1',
  ...overrides,
});

// Instance a.
const t1 = trace('t1', { startedAt: H + 1000, timeToFirstTokenMs: 20, promptTokens: 10, completionTokens: 5 });
const t2 = trace('t2', {
  startedAt: H + 2000,
  style: 'ollama-chat',
  status: 'failed',
  latencyMs: 300,
  promptTokens: 7,
  completionTokens: 0,
  tags: ['app:chat', 'user:ada'],
});
const t3 = trace('t3', { startedAt: H + 1500, status: 'retried', nodeId: 'gpu-2', latencyMs: 50 });
// Instance b: t7 is older than what instance a already wrote to gpu-1 × m1 (its `last_at` cannot rise).
const t4 = trace('t4', {
  startedAt: H + 3000,
  nodeId: 'gpu-2',
  latencyMs: 1000,
  timeToFirstTokenMs: 100,
  promptTokens: 50,
  completionTokens: 30,
  loadMs: 1500,
  retries: 1,
  fallbackModel: 'm1',
  requestedModel: 'm0',
});
const t5 = trace('t5', {
  startedAt: H + 500,
  servedModel: 'm2',
  requestedModel: 'm2',
  latencyMs: 10,
  timeToFirstTokenMs: 5,
  promptTokens: 2000,
  completionTokens: 1,
  tags: [],
});
const t7 = trace('t7', {
  startedAt: H + 100,
  latencyMs: 40,
  timeToFirstTokenMs: 10,
  promptTokens: 3,
  completionTokens: 2,
});
/** A benchmark request: kept with the traces, counted nowhere. */
const bench = trace('bench', {
  startedAt: H + 9000,
  latencyMs: 5,
  promptTokens: 99_999,
  completionTokens: 99_999,
  benchmarkRunId: 'run-1',
});
/** A model pull: kept with the traces, counted nowhere (a download is no request to the model). */
const pull = trace('pull', { startedAt: H + 9500, style: 'pull', nodeId: 'gpu-3', latencyMs: 90_000 });

/** Bucket attributes: prefix → values counted once each. */
function buckets(histograms: Record<string, number[]>): Record<string, number> {
  const attributes: Record<string, number> = {};
  for (const [prefix, values] of Object.entries(histograms)) {
    for (const value of values)
      attributes[`${prefix}${bucketOf(value)}`] = (attributes[`${prefix}${bucketOf(value)}`] ?? 0) + 1;
  }
  return attributes;
}

async function attributesOf(key: { pk: string; sk: string }) {
  return (await store.table.getDoc(key.pk, key.sk))?.attributes;
}

describe('rollups written by two instances', () => {
  beforeAll(async () => {
    // Two instances: two tables (each remembers only the maxima it raised) and two queues, one table.
    const queueA = createWriteBehind(store.table);
    const queueB = createWriteBehind(openTable(store.client, store.tableName));
    const a = createTraceRecorder(queueA, { instanceId: 'a' });
    const b = createTraceRecorder(queueB, { instanceId: 'b' });
    for (const seeded of [t1, t2, t3]) a.record(seeded);
    for (const seeded of [t4, t5, bench, pull, t7]) b.record(seeded);
    await queueA.close();
    await queueB.close();
  });

  it('sums the fleet’s hour exactly: counters, styles, buckets, maxima and its expiry', async () => {
    const key = hourRollupKey(H, { kind: 'fleet' });
    const item = await store.table.getDoc(key.pk, key.sk);

    expect(item?.attributes).toEqual({
      requests: 5,
      completed: 4,
      failed: 1,
      retried: 1,
      prompt_tokens: 10 + 7 + 50 + 2000 + 3,
      completion_tokens: 5 + 30 + 1 + 2,
      latency_ms: 100 + 300 + 1000 + 10 + 40,
      ttft_ms: 20 + 100 + 5 + 10,
      ttft_count: 4,
      // t1: 100 − 20 for 4 tokens, t4: 1000 − 100 for 29, t7: 40 − 10 for 1 (t5 decoded 1 token: none).
      decode_ms: 80 + 900 + 30,
      decode_tokens: 4 + 29 + 1,
      retries: 1,
      fallbacks: 1,
      cold_loads: 1,
      max_prompt_tokens: 2000,
      max_total_tokens: 2001,
      last_at: H + 3000,
      'style_openai-chat': 4,
      'style_ollama-chat': 1,
      'style_ollama-chat_failed': 1,
      ...buckets({
        hl: [100, 300, 1000, 10, 40],
        ht: [20, 100, 5, 10],
        hp: [10, 50, 2000, 3],
        hn: [15, 80, 2001, 5],
      }),
    });
    expect(item?.expiresAt).toBe((H + HOUR) / 1000 + MAX_WINDOW_HOURS * 3600);
  });

  it('sums a node × model day both instances wrote, the later write’s older last_at kept below', async () => {
    const key = dayRollupKey(H, { kind: 'node-model', nodeId: 'gpu-1', model: 'm1' });
    const item = await store.table.getDoc(key.pk, key.sk);

    expect(item?.attributes).toEqual({
      requests: 3,
      completed: 2,
      failed: 1,
      prompt_tokens: 20,
      completion_tokens: 7,
      latency_ms: 440,
      ttft_ms: 30,
      ttft_count: 2,
      decode_ms: 110,
      decode_tokens: 5,
      max_prompt_tokens: 10,
      max_total_tokens: 15,
      last_at: H + 2000,
      ...buckets({ hl: [100, 300, 40], ht: [20, 10], hp: [10, 3], hn: [15, 5] }),
    });
    expect(item?.expiresAt).toBe((Math.floor(H / DAY) * DAY + DAY) / 1000 + MAX_WINDOW_DAYS * 86_400);
  });

  it('counts a retried attempt under its node only as retried, and keeps totals without an expiry', async () => {
    const total = await store.table.getDoc(totalRollupKey('gpu-2', 'm1').pk, totalRollupKey('gpu-2', 'm1').sk);

    expect(total?.attributes).toEqual({
      requests: 1,
      completed: 1,
      retried: 1,
      prompt_tokens: 50,
      completion_tokens: 30,
      latency_ms: 1000,
      ttft_ms: 100,
      ttft_count: 1,
      decode_ms: 900,
      decode_tokens: 29,
      retries: 1,
      fallbacks: 1,
      cold_loads: 1,
      max_prompt_tokens: 50,
      max_total_tokens: 80,
      last_at: H + 3000,
      ...buckets({ hl: [1000], ht: [100], hp: [50], hn: [80] }),
    });
    expect(total?.expiresAt).toBeUndefined();
  });

  it('sums each tag, and a trace without tags adds to none', async () => {
    expect(await attributesOf(dayRollupKey(H, { kind: 'tag', tag: 'app:chat' }))).toMatchObject({
      requests: 4,
      completed: 3,
      failed: 1,
      retried: 1,
      prompt_tokens: 70,
      last_at: H + 3000,
      max_prompt_tokens: 50,
    });
    expect(await attributesOf(dayRollupKey(H, { kind: 'tag', tag: 'user:ada' }))).toMatchObject({
      requests: 1,
      failed: 1,
      last_at: H + 2000,
    });
    expect(
      (await attributesOf(dayRollupKey(H, { kind: 'tag', tag: 'user:ada' })))?.['max_prompt_tokens'],
    ).toBeUndefined();
  });

  it('keeps the benchmark and pull traces with the others, and counts them nowhere', async () => {
    const pages = await store.table.queryDocs(`TRACE#${dayOf(H)}`);
    const kept = pages.flatMap((page) => (JSON.parse(page.doc ?? '{}') as TracePage).traces.map((t) => t.requestId));
    expect(kept.sort()).toEqual(['bench', 'pull', 't1', 't2', 't3', 't4', 't5', 't7']);

    const rows = await createRollupReader(store.table).nodeModelDays({ startMs: H, endMs: H + HOUR });
    expect(rows.map((row) => [row.nodeId, row.model, row.rollup.counters.requests]).sort()).toEqual([
      ['gpu-1', 'm1', 3],
      ['gpu-1', 'm2', 1],
      ['gpu-2', 'm1', 1],
    ]);
    const fleet = await createRollupReader(store.table).fleetHours({ startMs: H, endMs: H + HOUR });
    expect(fleet.map((row) => [row.rollup.counters.requests, row.rollup.maxima.last_at])).toEqual([[5, H + 3000]]);
  });
});
