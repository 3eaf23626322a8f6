import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { percentile } from '../../../../lib/core/analytics/histogram';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { createRollupReader } from '../../../../lib/services/analytics/rollup-reader';
import { createTraceRecorder } from '../../../../lib/services/analytics/trace';
import { createWriteBehind } from '../../../../lib/services/store/write-behind';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

let store: StoreFixture;
const HOUR = 3_600_000;
/** 10:30 UTC today, so the hour and the day are unambiguous. */
const AT = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 10.5 * HOUR;

beforeAll(async () => {
  store = await startStore('rollup-reader');
});

afterAll(async () => {
  await store.close();
});

const trace = (overrides: Partial<Trace>): Trace => ({
  requestId: 'r',
  startedAt: AT,
  style: 'openai-chat',
  status: 'completed',
  requestedModel: 'llama3:8b',
  servedModel: 'llama3:8b',
  nodeId: 'gpu-1',
  latencyMs: 1000,
  timeToFirstTokenMs: 100,
  promptTokens: 100,
  completionTokens: 10,
  retries: 0,
  tags: ['app:a'],
  clientIp: '127.0.0.1',
  ...overrides,
});

describe('createRollupReader', () => {
  it('reads back what the recorder summed, per day × node × model, tag, hour and all time', async () => {
    const queue = createWriteBehind(store.table);
    const traces = createTraceRecorder(queue, { instanceId: 'reader' });
    traces.record(trace({ latencyMs: 1000 }));
    traces.record(trace({ latencyMs: 3000, nodeId: 'gpu-2', tags: ['app:a', 'user:bo'] }));
    traces.record(trace({ status: 'failed', promptTokens: 0, completionTokens: 0, nodeId: 'gpu-2', tags: [] }));
    await queue.close();
    const reader = createRollupReader(store.table);
    const window = { startMs: AT - HOUR, endMs: AT + HOUR };

    const nodeModels = await reader.nodeModelDays(window);
    expect(nodeModels.map((row) => [row.nodeId, row.model, row.rollup.counters.requests]).sort()).toEqual([
      ['gpu-1', 'llama3:8b', 1],
      ['gpu-2', 'llama3:8b', 2],
    ]);
    const tags = await reader.tagDays(window);
    expect(tags.map((row) => [row.tag, row.rollup.counters.requests]).sort()).toEqual([
      ['app:a', 2],
      ['user:bo', 1],
    ]);
    const [fleet] = await reader.fleetHours(window);
    expect(fleet?.period).toBe(`${new Date(AT).toISOString().slice(0, 10)}T10`);
    expect(fleet?.rollup.counters).toEqual(
      expect.objectContaining({ requests: 3, completed: 2, failed: 1, latency_ms: 5000 }),
    );
    // Two of three latencies are at most 1000 ms: the median reads within 4.4 % of 1000.
    expect(percentile(fleet?.rollup.histograms.latency_ms ?? new Map(), 0.5)).toBeCloseTo(1000, -2);
    expect((await reader.modelHours(window)).map((row) => row.model)).toEqual(['llama3:8b']);
    expect((await reader.nodeHours(window)).map((row) => row.nodeId).sort()).toEqual(['gpu-1', 'gpu-2']);
    expect((await reader.totals()).map((row) => row.rollup.counters.requests).sort()).toEqual([1, 2]);
    // Hours outside the window are not read back.
    expect(await reader.fleetHours({ startMs: AT + 2 * HOUR, endMs: AT + 3 * HOUR })).toEqual([]);
  });
});
