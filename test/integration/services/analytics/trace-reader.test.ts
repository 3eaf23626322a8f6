/**
 * The trace reader on dynalite, with pages written by the real recorder and write-behind: newest first
 * across instances and within pages, only the pages it needs, the filters, benchmark traffic left out.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { createTraceRecorder, type TraceRecorder } from '../../../../lib/services/analytics/trace';
import { createTraceReader } from '../../../../lib/services/analytics/trace-reader';
import { createWriteBehind, type WriteBehind } from '../../../../lib/services/store/write-behind';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

const BASE = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const at = (seconds: number) => BASE + seconds * 1000;

let store: StoreFixture;
let queue: WriteBehind;

beforeEach(async () => {
  store = await startStore('trace-reader');
  queue = createWriteBehind(store.table);
});

afterEach(async () => {
  await queue.close();
  await store.close();
});

const trace = (seconds: number, overrides: Partial<Trace> = {}): Trace => ({
  requestId: `r-${seconds}`,
  startedAt: at(seconds),
  style: 'openai-chat',
  status: 'completed',
  requestedModel: 'llama3:8b',
  servedModel: 'llama3:8b',
  nodeId: 'gpu-1',
  latencyMs: 100,
  retries: 0,
  tags: [],
  clientIp: '127.0.0.1',
  ...overrides,
});

/** One page: these traces recorded in this order, then a drain. */
async function page(recorder: TraceRecorder, traces: readonly Trace[]): Promise<void> {
  for (const recorded of traces) recorder.record(recorded);
  await queue.flush();
}

const ids = (traces: readonly Trace[]) => traces.map((recorded) => recorded.requestId);

describe('createTraceReader', () => {
  it('lists traces newest first across instances whose pages overlap in time', async () => {
    const a = createTraceRecorder(queue, { instanceId: 'a' });
    const b = createTraceRecorder(queue, { instanceId: 'b' });
    for (const seconds of [50, 60, 70, 80]) await page(a, [trace(seconds)]);
    await page(a, [trace(100), trace(100.5), trace(100.9)]);
    await page(b, [trace(100.3), trace(100.6)]);

    const read = await createTraceReader(store.table).recent({ limit: 3 });

    expect(ids(read.traces)).toEqual(['r-100.9', 'r-100.6', 'r-100.5']);
    expect(read.partial).toBe(false);
    // The first four pages (keys 100.9, 100.6, 80, 70) settle it: no page after 70 holds a later start.
    expect(read.pagesRead).toBe(4);
  });

  it('finds a trace that started late in a page whose first request ran long, ahead of older pages', async () => {
    const a = createTraceRecorder(queue, { instanceId: 'a' });
    const b = createTraceRecorder(queue, { instanceId: 'b' });
    // A request that started at 10 s and ran 200 s is recorded with one that started at 209 s.
    await page(a, [trace(10, { latencyMs: 200_000 }), trace(209)]);
    for (const seconds of [150, 160, 170, 180, 190, 200]) await page(b, [trace(seconds)]);

    const read = await createTraceReader(store.table).recent({ limit: 2 });

    expect(ids(read.traces)).toEqual(['r-209', 'r-200']);
  });

  it('reads only the pages it needs, a few at a time', async () => {
    const a = createTraceRecorder(queue, { instanceId: 'a' });
    for (let seconds = 0; seconds < 40; seconds += 1) await page(a, [trace(seconds * 10)]);

    const read = await createTraceReader(store.table).recent({ limit: 5 });

    expect(ids(read.traces)).toEqual(['r-390', 'r-380', 'r-370', 'r-360', 'r-350']);
    // 4 pages hold four traces; the next 8 hold enough, and the ninth-newest is far older.
    expect(read.pagesRead).toBe(12);
  });

  it('returns every trace there is when asked for more', async () => {
    const a = createTraceRecorder(queue, { instanceId: 'a' });
    await page(a, [trace(1), trace(2)]);

    const read = await createTraceReader(store.table).recent({ limit: 500 });

    expect(ids(read.traces)).toEqual(['r-2', 'r-1']);
    expect(read.partial).toBe(false);
  });

  it('filters by model (asked for or served), node, status and tag', async () => {
    const a = createTraceRecorder(queue, { instanceId: 'a' });
    await page(a, [
      trace(1, { requestedModel: 'gpt-4o', servedModel: 'qwen3:8b' }),
      trace(2, { nodeId: 'gpu-2' }),
      trace(3, { status: 'failed', tags: ['app:ide'] }),
      trace(4, { tags: ['user:bo', 'app:ide'] }),
    ]);
    const reader = createTraceReader(store.table);

    expect(ids((await reader.recent({ limit: 10, model: 'qwen3:8b' })).traces)).toEqual(['r-1']);
    expect(ids((await reader.recent({ limit: 10, model: 'gpt-4o' })).traces)).toEqual(['r-1']);
    expect(ids((await reader.recent({ limit: 10, nodeId: 'gpu-2' })).traces)).toEqual(['r-2']);
    expect(ids((await reader.recent({ limit: 10, status: 'failed' })).traces)).toEqual(['r-3']);
    expect(ids((await reader.recent({ limit: 10, tag: 'app:ide' })).traces)).toEqual(['r-4', 'r-3']);
  });

  it('leaves benchmark traffic out unless asked for all of it or for one run', async () => {
    const a = createTraceRecorder(queue, { instanceId: 'a' });
    const benchmark = (seconds: number, runId: string): Trace =>
      ({ ...trace(seconds), benchmarkRunId: runId }) as Trace;
    await page(a, [trace(1), benchmark(2, 'run-1'), benchmark(3, 'run-2')]);
    const reader = createTraceReader(store.table);

    expect(ids((await reader.recent({ limit: 10 })).traces)).toEqual(['r-1']);
    expect(ids((await reader.recent({ limit: 10, benchmark: 'include' })).traces)).toEqual(['r-3', 'r-2', 'r-1']);
    expect(ids((await reader.recent({ limit: 10, benchmark: { runId: 'run-1' } })).traces)).toEqual(['r-2']);
  });

  it('stops at its byte budget and says the list may be partial', async () => {
    const a = createTraceRecorder(queue, { instanceId: 'a' });
    for (let seconds = 0; seconds < 10; seconds += 1) await page(a, [trace(seconds)]);

    const read = await createTraceReader(store.table, { maxReadBytes: 1 }).recent({ limit: 5, nodeId: 'nowhere' });

    expect(read).toEqual({ traces: [], partial: true, pagesRead: 4 });
  });
});
