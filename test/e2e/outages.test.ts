/**
 * Outages end to end (issue 19 items 1 and 5): a listed node that accepts connections and never
 * answers, with the router's collector forced to run every 250 ms; and the table stopped (connections
 * accepted, never answered) or deleted under a running router.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDynamo } from '../../emulator/dynamo';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { createDynamoClient } from '../../lib/services/store/client';
import { dayOf } from '../../lib/services/store/keys';
import { dynamoSdk } from '../../lib/services/store/sdk';
import { openTable } from '../../lib/services/store/table';
import { type HungServer, startHungServer } from '../helpers/hung-server';
import { outcomeWithin } from '../helpers/outcome-within';
import { isTagsPoll, requestsArrive } from '../helpers/requests-arrive';
import { type StoppableProxy, startStoppableProxy } from '../helpers/stoppable-proxy';
import { eventually, type RouterProcess, startRouter } from './router-process';

const MODEL = 'llama3.2:3b';
const cleanups: (() => Promise<unknown> | undefined)[] = [];
let healthy: SimNode;

beforeAll(async () => {
  healthy = await startSimNode({ id: 'healthy', models: CATALOG.filter((entry) => entry.name === MODEL) });
  cleanups.push(() => healthy.close());
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Status {
  nodes: { node_id: string; status: string }[];
  snapshot_age_ms: number | null;
  snapshot_refresh_failed: boolean;
}

async function status(router: RouterProcess): Promise<Status> {
  const response = await fetch(`${router.url}/fleet/status`);
  expect(response.status).toBe(200);
  return (await response.json()) as Status;
}

async function chat(router: RouterProcess, tag = 'e2e:outage'): Promise<Response> {
  return fetch(`${router.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-tags': tag },
    body: JSON.stringify({ model: MODEL, stream: false, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

/** Settles with the response, or 'still waiting' after a bound far below the hang it guards against. */
async function within<T>(work: Promise<T>, boundMs: number): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'still waiting'>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), boundMs);
  });
  return Promise.race([work, bound]).finally(() => clearTimeout(timer));
}

async function hungServer(): Promise<HungServer> {
  const server = await startHungServer();
  cleanups.push(() => server.close());
  return server;
}

describe('a listed node that never answers, with the collector forced', () => {
  it('keeps polling and routing to the healthy node while the hung one is skipped', async () => {
    const hung = await hungServer();
    const gcFlags = ['--expose-gc', '--require', join(__dirname, '..', 'fixtures', 'collect-garbage.cjs')];
    const router = await startRouter(
      { FLEET_NODES: `hung=${hung.url},healthy=${healthy.url}`, FLEET_POLL_INTERVAL_MS: '250' },
      [],
      { nodeFlags: gcFlags },
    );
    cleanups.push(() => router.stop());
    expect(await outcomeWithin(requestsArrive(healthy, isTagsPoll, 1), 10_000)).toBe('resolved');

    // Every 250 ms a pass; on a pass that waits for the hung node (600 s), the polls stop coming.
    expect(await outcomeWithin(requestsArrive(healthy, isTagsPoll, 8), 15_000)).toBe('resolved');
    // The hung node is recorded once its first poll reaches its 5 s deadline; the healthy one never waits for it.
    const nodes = await eventually(async () => {
      const listed = (await status(router)).nodes;
      expect(listed.find((node) => node.node_id === 'hung')?.status).toBe('offline');
      return listed;
    }, 15_000);
    const reply = await chat(router);

    expect(nodes.find((node) => node.node_id === 'healthy')?.status).toBe('online');
    expect(reply.status).toBe(200);
  }, 40_000);
});

describe('the table stopped or deleted under a running router', () => {
  const TABLE = 'fleet-outage';
  let proxy: StoppableProxy;
  let router: RouterProcess;
  let dynamoEndpoint: string;

  beforeAll(async () => {
    const dynamo = await startDynamo({ dataDir: ':memory:', port: 0 });
    cleanups.push(() => dynamo.close());
    dynamoEndpoint = dynamo.endpoint;
    proxy = await startStoppableProxy(dynamo.endpoint);
    cleanups.push(() => proxy.close());
    router = await startRouter({
      FLEET_NODES: `healthy=${healthy.url}`,
      FLEET_DYNAMODB_ENDPOINT: proxy.url,
      FLEET_TABLE: TABLE,
    });
    cleanups.push(() => router.stop());
    await eventually(async () => expect((await chat(router)).status).toBe(200));
  });

  it('routes on the last snapshot while the table does not answer, and says how old it is', async () => {
    proxy.stop();
    await new Promise((resolve) => setTimeout(resolve, 1500));

    // Today each request waited ~19.5 s for the table; a bound far below that tells them apart.
    const replies = [await within(chat(router), 8000), await within(chat(router), 8000)];
    expect(replies.map((reply) => (reply === 'still waiting' ? reply : reply.status))).toEqual([200, 200]);
    const during = await status(router);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const later = await status(router);
    proxy.resume();

    expect(during.snapshot_refresh_failed).toBe(true);
    expect(during.snapshot_age_ms).toBeGreaterThan(1500);
    expect(later.snapshot_age_ms).toBeGreaterThan(during.snapshot_age_ms ?? Number.POSITIVE_INFINITY);
    await eventually(async () => expect((await status(router)).snapshot_refresh_failed).toBe(false), 10_000);
  }, 40_000);

  it('creates a deleted table again and writes the traces of requests made meanwhile', async () => {
    const client = createDynamoClient({ dynamodbEndpoint: dynamoEndpoint });
    await client.send(new (dynamoSdk().DeleteTableCommand)({ TableName: TABLE }));

    const reply = await chat(router, 'e2e:vanished');

    expect(reply.status).toBe(200);
    const table = openTable(client, TABLE);
    await eventually(async () => {
      const pages = await table.queryDocs(`TRACE#${dayOf(Date.now())}`);
      const traces = pages.flatMap(
        (page) => (JSON.parse(page.doc ?? '{}') as { traces?: { tags: string[] }[] }).traces,
      );
      expect(traces.filter((trace) => trace?.tags.includes('e2e:vanished'))).toHaveLength(1);
    }, 15_000);
    await eventually(async () => expect((await status(router)).nodes.map((node) => node.node_id)).toEqual(['healthy']));
  }, 40_000);
});
