import { randomBytes } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { MAX_WINDOW_DAYS } from '../../../../lib/core/analytics/window';
import { mergeTags } from '../../../../lib/core/scoring/tags';
import { MAX_TRACE_NAME_BYTES, MAX_TRACE_NODE_ID_BYTES } from '../../../../lib/services/analytics/bounded-trace';
import { createTraceRecorder, type TracePage } from '../../../../lib/services/analytics/trace';
import { dayOf, dayRollupKey } from '../../../../lib/services/store/keys';

import { createWriteBehind } from '../../../../lib/services/store/write-behind';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

const usageKey = (at: number, nodeId: string, model: string) => dayRollupKey(at, { kind: 'node-model', nodeId, model });
const tagUsageKey = (at: number, tag: string) => dayRollupKey(at, { kind: 'tag', tag });

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

/** The pages one writer left, oldest first. */
async function pagesOf(instanceId: string) {
  const items = await store.table.queryDocs(`TRACE#${dayOf(NOW + 5000)}`);
  return items.filter((item) => item.sk.split('#')[1] === instanceId);
}

describe('createTraceRecorder', () => {
  it('writes the trace and adds to the day’s usage per node and model and per tag', async () => {
    const queue = createWriteBehind(store.table);
    const traces = createTraceRecorder(queue, { instanceId: 'usage' });

    traces.record(trace({ requestId: 'r-1' }));
    traces.record(
      trace({ requestId: 'r-2', status: 'failed', completionTokens: 0, error: 'node failed', tags: ['app:chat'] }),
    );
    traces.record(trace({ requestId: 'r-0', status: 'retried', nodeId: 'gpu-2' }));
    await queue.close();

    const pages = await pagesOf('usage');
    expect(pages).toHaveLength(1);
    expect(JSON.parse(pages[0]?.doc ?? '{}')).toEqual({
      traces: [
        trace({ requestId: 'r-1' }),
        trace({ requestId: 'r-2', status: 'failed', completionTokens: 0, error: 'node failed', tags: ['app:chat'] }),
        trace({ requestId: 'r-0', status: 'retried', nodeId: 'gpu-2' }),
      ],
    });
    expect(pages[0]?.expiresAt).toBe(Math.floor((NOW + 5000) / 1000) + 30 * 24 * 3600);
    // One BatchWrite for the page, and one UpdateItem per rollup key the three traces touch — the hour's
    // fleet and model, the day's node × model, the hour's node and the all-time node × model for gpu-1
    // and gpu-2, the day's two tags: 10. Each key is new, so raising its maxima never fails a condition.
    expect(queue.stats().writeRequests).toBe(11);
    const usage = usageKey(NOW, 'gpu-1', 'llama3.2:3b');
    expect((await store.table.getDoc(usage.pk, usage.sk))?.attributes).toEqual(
      expect.objectContaining({ requests: 2, completed: 1, failed: 1, prompt_tokens: 52, completion_tokens: 40 }),
    );
    const retriedNode = usageKey(NOW, 'gpu-2', 'llama3.2:3b');
    expect((await store.table.getDoc(retriedNode.pk, retriedNode.sk))?.attributes).toEqual(
      expect.objectContaining({ retried: 1 }),
    );
    expect((await store.table.getDoc(retriedNode.pk, retriedNode.sk))?.attributes['requests']).toBeUndefined();
    // Day rollups live MAX_WINDOW_DAYS past their day.
    const dayEnd = (Math.floor((NOW + 5000) / 86_400_000) + 1) * 86_400;
    expect((await store.table.getDoc(usage.pk, usage.sk))?.expiresAt).toBe(dayEnd + MAX_WINDOW_DAYS * 86_400);
    const tag = tagUsageKey(NOW, 'user:ada');
    expect((await store.table.getDoc(tag.pk, tag.sk))?.attributes).toEqual(expect.objectContaining({ requests: 1 }));
  });

  it('counts the usage of the longest tags a request can carry; the table refuses none', async () => {
    const queue = createWriteBehind(store.table, { onError: () => undefined });
    const traces = createTraceRecorder(queue, { instanceId: 'long-tags' });
    const tags = mergeTags({ headerValue: `${'€'.repeat(3000)},${'😀'.repeat(1500)}` });

    traces.record(trace({ requestId: 'r-long', tags }));
    await queue.close();

    expect(queue.stats().rejected).toBe(0);
    for (const tag of tags) {
      const key = tagUsageKey(NOW, tag);
      expect((await store.table.getDoc(key.pk, key.sk))?.attributes).toEqual(expect.objectContaining({ requests: 1 }));
    }
  });

  it('keeps a trace whose names are 800 KB, cut, and counts its usage; the table refuses nothing', async () => {
    const queue = createWriteBehind(store.table, { onError: () => undefined });
    const traces = createTraceRecorder(queue, { instanceId: 'huge-names' });
    // Random text, so the deflated page is as large as the text.
    const huge = () => randomBytes(600_000).toString('base64');

    traces.record(trace({ requestId: 'r-small' }));
    traces.record(trace({ requestId: 'r-huge', requestedModel: huge(), servedModel: huge(), nodeId: huge() }));
    await queue.close();

    expect(queue.stats().rejected).toBe(0);
    const kept = (await pagesOf('huge-names')).flatMap((page) => (JSON.parse(page.doc ?? '{}') as TracePage).traces);
    expect(kept.map((t) => t.requestId)).toEqual(['r-small', 'r-huge']);
    const cut = kept[1] as Trace;
    expect(cut.servedModel).toHaveLength(MAX_TRACE_NAME_BYTES);
    expect(cut.nodeId).toHaveLength(MAX_TRACE_NODE_ID_BYTES);
    const usage = usageKey(NOW + 5000, cut.nodeId ?? '', cut.servedModel ?? '');
    expect((await store.table.getDoc(usage.pk, usage.sk))?.attributes).toEqual(
      expect.objectContaining({ requests: 1 }),
    );
  });

  it('lists trace pages newest first through the index', async () => {
    const queue = createWriteBehind(store.table);
    const traces = createTraceRecorder(queue, { instanceId: 'newest' });
    traces.record(trace({ requestId: 'later', startedAt: NOW + 60_000 }));
    await queue.close();

    const newest = await store.table.queryDocs('TRACE', { index: 'gsi1', scanForward: false, limit: 1 });

    expect(JSON.parse(newest[0]?.doc ?? '{}').traces[0].requestId).toBe('later');
  });

  it('starts a new page before one would pass the size bound, and keeps every trace', async () => {
    const queue = createWriteBehind(store.table);
    const traces = createTraceRecorder(queue, { instanceId: 'paged', maxPageBytes: 2000 });
    for (let index = 0; index < 20; index += 1) traces.record(trace({ requestId: `p-${index}` }));
    await queue.close();

    const pages = await pagesOf('paged');
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) {
      expect(page.doc).toEqual(expect.any(String));
      expect(Buffer.byteLength(page.doc ?? '')).toBeLessThanOrEqual(2000);
    }
    const ids = pages.flatMap((page) => (JSON.parse(page.doc ?? '{}') as TracePage).traces.map((t) => t.requestId));
    expect(ids).toEqual(Array.from({ length: 20 }, (_, index) => `p-${index}`));
  });

  it('stores a full page deflated in the table and reads every trace back', async () => {
    const queue = createWriteBehind(store.table);
    const traces = createTraceRecorder(queue, { instanceId: 'deflated' });
    for (let index = 0; index < 300; index += 1) traces.record(trace({ requestId: `d-${index}`, latencyMs: index }));
    await queue.close();

    const raw = await store.client.send(
      new QueryCommand({
        TableName: store.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: `TRACE#${dayOf(NOW + 5000)}` } },
      }),
    );
    const stored = (raw.Items ?? []).filter((item) => item['sk']?.S?.split('#')[1] === 'deflated');
    expect(stored).toHaveLength(1);
    const bytes = stored[0]?.['doc']?.B?.length ?? Number.POSITIVE_INFINITY;
    const pages = await pagesOf('deflated');
    const json = pages[0]?.doc ?? '';
    expect(bytes).toBeLessThan(json.length / 5);
    const back = (JSON.parse(json) as TracePage).traces;
    expect(back.map((t) => t.requestId)).toEqual(Array.from({ length: 300 }, (_, index) => `d-${index}`));
    expect(back[299]).toEqual(trace({ requestId: 'd-299', latencyMs: 299 }));
  });

  it('writes the traces recorded after a flush in a page of their own, and cuts long errors', async () => {
    const queue = createWriteBehind(store.table);
    const traces = createTraceRecorder(queue, { instanceId: 'twice' });
    traces.record(trace({ requestId: 'first' }));
    await queue.flush();
    traces.record(trace({ requestId: 'second', status: 'failed', error: 'x'.repeat(5000) }));
    await queue.close();

    const pages = await pagesOf('twice');
    expect(pages.map((page) => (JSON.parse(page.doc ?? '{}') as TracePage).traces.map((t) => t.requestId))).toEqual([
      ['first'],
      ['second'],
    ]);
    const second = (JSON.parse(pages[1]?.doc ?? '{}') as TracePage).traces[0];
    expect(second?.error).toHaveLength(2001);
  });
});
