/**
 * Sharing one node between applications through the emulator (issue 43): while one request runs on a node
 * that runs one at a time, the waiting ones are served high first, then normal in turn across
 * applications, then low; `/fleet/queue` shows who waits, by priority and application; the traces keep
 * each request's priority, application and queue wait; an unknown priority is a 400 in each family's shape
 * naming the field; an application over its FLEET_APP_LIMITS gets a 429 with Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter, waitForModel } from './router-process';

const MODEL = 'llama3.2:3b';
let node: SimNode;
const routers: RouterProcess[] = [];

beforeAll(async () => {
  node = await startSimNode({
    id: 'solo',
    models: CATALOG.filter((entry) => entry.name === MODEL),
    loaded: [MODEL],
    numParallel: 1,
    // Each request holds the node's one slot for over a second: long enough to line the others up.
    ttftMs: 1000,
    tokensPerSecond: 200,
  });
}, 30_000);

afterAll(async () => {
  await Promise.all(routers.map((router) => router.stop()));
  await node?.close();
});

async function routerWith(env: Record<string, string> = {}): Promise<RouterProcess> {
  const router = await startRouter({ FLEET_NODES: `solo=${node.url}`, FLEET_NODE_CONCURRENCY: 'solo=1', ...env });
  routers.push(router);
  await waitForModel(router.url, MODEL);
  return router;
}

interface Sent {
  readonly name: string;
  readonly done: Promise<number>;
}

/** An Ollama chat tagged `app`, at `priority` (none: unsaid); resolves to its status once answered. */
function chat(router: RouterProcess, name: string, app: string, priority?: string): Sent {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-service-tags': app };
  if (priority !== undefined) headers['x-fleet-priority'] = priority;
  const done = fetch(`${router.url}/api/chat`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: name }], stream: false }),
  }).then(async (response) => {
    await response.arrayBuffer();
    return response.status;
  });
  return { name, done };
}

interface QueueBody {
  readonly pending: number;
  readonly pending_by_priority: Record<string, number>;
  readonly pending_by_app: Record<string, number>;
}

async function queue(router: RouterProcess): Promise<QueueBody> {
  return (await (await fetch(`${router.url}/fleet/queue`)).json()) as QueueBody;
}

describe('priorities and fair sharing through the emulator', () => {
  it('serves the waiting requests high first, then normal in turn across applications, then low', async () => {
    const router = await routerWith();
    const order: string[] = [];
    const sent: Sent[] = [];
    const send = async (next: Sent) => {
      sent.push(next);
      void next.done.then(() => order.push(next.name));
      // 50 ms apart, so they arrive in this order, all within the running request's second.
      await new Promise((resolve) => setTimeout(resolve, 50));
    };

    await send(chat(router, 'running', 'warmup'));
    await eventually(async () => expect(node.snapshot().requestsActive).toBe(1));
    for (let index = 1; index <= 3; index += 1) await send(chat(router, `batch-${index}`, 'batch', 'low'));
    await send(chat(router, 'chat-1', 'chat'));
    await send(chat(router, 'review-1', 'review'));
    await send(chat(router, 'chat-2', 'chat'));
    await send(chat(router, 'agent-1', 'agent', 'high'));
    const waiting = await eventually(async () => {
      const body = await queue(router);
      expect(body.pending).toBe(7);
      return body;
    }, 1000);

    const statuses = await Promise.all(sent.map((request) => request.done));
    await eventually(async () => expect(order).toHaveLength(8));

    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(waiting.pending_by_priority).toEqual({ high: 1, normal: 3, low: 3 });
    expect(waiting.pending_by_app).toEqual({ 'tag:batch': 3, 'tag:chat': 2, 'tag:review': 1, 'tag:agent': 1 });
    expect(order).toEqual(['running', 'agent-1', 'chat-1', 'review-1', 'chat-2', 'batch-1', 'batch-2', 'batch-3']);

    const traces = await eventually(async () => {
      const body = (await (await fetch(`${router.url}/dashboard/api/traces?limit=20`)).json()) as {
        traces: { tags: string[]; priority: string | null; app: string | null; queue_wait_ms: number | null }[];
      };
      expect(body.traces.filter((trace) => trace.tags.includes('batch'))).toHaveLength(3);
      return body.traces;
    });
    const batch = traces.find((trace) => trace.tags.includes('batch'));
    const agent = traces.find((trace) => trace.tags.includes('agent'));
    expect(batch).toMatchObject({ priority: 'low', app: 'tag:batch' });
    expect(agent).toMatchObject({ priority: 'high', app: 'tag:agent' });
    // The last batch request waited for the seven served before it, each at least the node's first token.
    expect(
      Math.max(...traces.filter((t) => t.tags.includes('batch')).map((t) => t.queue_wait_ms ?? 0)),
    ).toBeGreaterThan(6 * 150);
  }, 90_000);

  it("refuses an unknown priority with a 400 in each family's shape, naming the field", async () => {
    const router = await routerWith();
    const post = (path: string, body: object, headers: Record<string, string> = {}) =>
      fetch(`${router.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const messages = [{ role: 'user', content: 'hi' }];

    const openai = await post('/v1/chat/completions', { model: MODEL, messages, metadata: { priority: 'urgent' } });
    const anthropic = await post(
      '/v1/messages',
      { model: MODEL, max_tokens: 10, messages },
      { 'x-fleet-priority': 'asap' },
    );
    const ollama = await post('/api/chat', { model: MODEL, messages, metadata: { priority: 'later' } });

    expect([openai.status, anthropic.status, ollama.status]).toEqual([400, 400, 400]);
    expect(await openai.json()).toEqual({
      error: expect.objectContaining({
        type: 'invalid_request_error',
        param: 'metadata.priority',
        message: expect.stringContaining('metadata.priority must be one of high, normal, low'),
      }),
    });
    expect(await anthropic.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('X-Fleet-Priority must be one of') },
    });
    expect(await ollama.json()).toEqual({ error: expect.stringContaining('metadata.priority must be one of') });
  }, 30_000);

  it("answers an application over its limit with 429 and Retry-After, in the family's shape", async () => {
    const router = await routerWith({ FLEET_APP_LIMITS: 'tag:batch=1' });
    const first = chat(router, 'batch-1', 'batch', 'low');
    await eventually(async () => {
      const status = (await (await fetch(`${router.url}/fleet/status`)).json()) as {
        queues: Record<string, { in_flight: number }>;
      };
      expect(Object.values(status.queues).reduce((sum, entry) => sum + entry.in_flight, 0)).toBe(1);
    });

    const second = await fetch(`${router.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-tags': 'batch' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'again' }] }),
    });
    const other = chat(router, 'chat-1', 'chat');

    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(await second.json()).toEqual({
      error: expect.objectContaining({ type: 'rate_limit_error', code: 'app_limit_reached' }),
    });
    expect(await first.done).toBe(200);
    expect(await other.done).toBe(200);
  }, 30_000);
});
