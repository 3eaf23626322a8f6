/**
 * Admission on the router's defaults (issue 24 item 1): in front of one Ollama that runs one request at
 * a time, 64 clients at once are all served — the router queues them as patiently as the Ollama alone
 * would (it queues 512), where the old default of 32 waiting turned half of them away with 503s. The bound
 * and the time-out are the operator's (FLEET_QUEUE_MAX_PENDING, FLEET_QUEUE_TIMEOUT_MS), shown in
 * `/fleet/queue`, and a smaller bound turns the rest away at once with 503 `queue_full` and Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { type RouterProcess, startRouter, waitForModel } from './router-process';

const MODEL = 'llama3.2:3b';
const CLIENTS = 64;
let node: SimNode;
const routers: RouterProcess[] = [];

beforeAll(async () => {
  node = await startSimNode({
    id: 'solo',
    models: CATALOG.filter((entry) => entry.name === MODEL),
    loaded: [MODEL],
    ttftMs: 5,
    tokensPerSecond: 2000,
  });
}, 30_000);

afterAll(async () => {
  await Promise.all(routers.map((router) => router.stop()));
  await node?.close();
});

async function routerWith(env: Record<string, string> = {}): Promise<RouterProcess> {
  const router = await startRouter({ FLEET_NODES: `solo=${node.url}`, ...env });
  routers.push(router);
  await waitForModel(router.url, MODEL);
  return router;
}

/** `CLIENTS` chats sent at once; the status of each, and the Retry-After of each 503. */
async function burst(router: RouterProcess): Promise<{ statuses: number[]; retryAfter: (string | null)[] }> {
  const replies = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, index) => {
      const response = await fetch(`${router.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `hello ${index}` }], stream: false }),
      });
      await response.arrayBuffer();
      return { status: response.status, retryAfter: response.headers.get('retry-after') };
    }),
  );
  return {
    statuses: replies.map((reply) => reply.status),
    retryAfter: replies.filter((reply) => reply.status === 503).map((reply) => reply.retryAfter),
  };
}

describe('admission on the defaults', () => {
  it('serves 64 clients at once through a node that runs one at a time, turning none away', async () => {
    const router = await routerWith();

    const { statuses } = await burst(router);

    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const queue = (await (await fetch(`${router.url}/fleet/queue`)).json()) as { admission: unknown };
    expect(queue.admission).toEqual({ max_pending: 512, timeout_ms: 600_000 });
  }, 120_000);

  it("keeps the operator's smaller bound: beyond it, 503 at once with Retry-After", async () => {
    const router = await routerWith({ FLEET_QUEUE_MAX_PENDING: '4', FLEET_QUEUE_TIMEOUT_MS: '30000' });

    const { statuses, retryAfter } = await burst(router);

    const served = statuses.filter((status) => status === 200).length;
    const refused = statuses.filter((status) => status === 503).length;
    expect(served + refused).toBe(CLIENTS);
    // One running and four waiting at the moment of the burst; as slots free, a few more get in.
    expect(served).toBeGreaterThanOrEqual(5);
    expect(refused).toBeGreaterThan(0);
    expect(retryAfter.every((value) => value !== null && Number(value) > 0)).toBe(true);
    const queue = (await (await fetch(`${router.url}/fleet/queue`)).json()) as { admission: unknown };
    expect(queue.admission).toEqual({ max_pending: 4, timeout_ms: 30_000 });
  }, 120_000);
});
