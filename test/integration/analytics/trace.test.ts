import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTraceRecorder, type Trace } from '../../../lib/analytics/trace';
import { tagUsageKey, traceKey, usageKey } from '../../../lib/store/keys';
import { createWriteBehind } from '../../../lib/store/write-behind';
import { type StoreFixture, startStore } from '../store/store-fixture';

let store: StoreFixture;
/** Now, to the second: traces expire after 30 days, and reads skip expired items. */
const NOW = Math.floor(Date.now() / 1000) * 1000;

beforeAll(async () => {
  store = await startStore('trace');
});

afterAll(async () => {
  await store.close();
});

const trace = (overrides: Partial<Trace>): Trace => ({
  requestId: 'r-1',
  startedAt: NOW + 5000,
  style: 'openai-chat',
  status: 'completed',
  requestedModel: 'llama3.2:3b',
  servedModel: 'llama3.2:3b',
  nodeId: 'gpu-1',
  score: 95,
  latencyMs: 812,
  timeToFirstTokenMs: 120,
  promptTokens: 26,
  completionTokens: 40,
  retries: 0,
  tags: ['app:chat', 'user:ada'],
  clientIp: '10.0.0.9',
  finishReason: 'stop',
  ...overrides,
});

describe('createTraceRecorder', () => {
  it('writes the trace and adds to the day’s usage per node and model and per tag', async () => {
    const queue = createWriteBehind(store.table);
    const traces = createTraceRecorder(queue);

    traces.record(trace({ requestId: 'r-1' }));
    traces.record(
      trace({ requestId: 'r-2', status: 'failed', completionTokens: 0, error: 'node failed', tags: ['app:chat'] }),
    );
    traces.record(trace({ requestId: 'r-0', status: 'retried', nodeId: 'gpu-2' }));
    await queue.close();

    const key = traceKey(NOW + 5000, 'r-1');
    const stored = await store.table.getDoc(key.pk, key.sk);
    expect(JSON.parse(stored?.doc ?? '{}')).toEqual(trace({ requestId: 'r-1' }));
    expect(stored?.expiresAt).toBe(Math.floor((NOW + 5000) / 1000) + 30 * 24 * 3600);
    const usage = usageKey(NOW, 'gpu-1', 'llama3.2:3b');
    expect((await store.table.getDoc(usage.pk, usage.sk))?.attributes).toEqual(
      expect.objectContaining({ requests: 2, errors: 1, prompt_tokens: 52, completion_tokens: 40, node_id: 'gpu-1' }),
    );
    const retriedNode = usageKey(NOW, 'gpu-2', 'llama3.2:3b');
    expect(await store.table.getDoc(retriedNode.pk, retriedNode.sk)).toBeUndefined();
    const tag = tagUsageKey(NOW, 'user:ada');
    expect((await store.table.getDoc(tag.pk, tag.sk))?.attributes).toEqual(expect.objectContaining({ requests: 1 }));
  });

  it('lists traces newest first through the index', async () => {
    const queue = createWriteBehind(store.table);
    const traces = createTraceRecorder(queue);
    traces.record(trace({ requestId: 'later', startedAt: NOW + 60_000 }));
    await queue.close();

    const newest = await store.table.queryDocs('TRACE', { index: 'gsi1', scanForward: false, limit: 1 });

    expect(JSON.parse(newest[0]?.doc ?? '{}').requestId).toBe('later');
  });
});
