/**
 * A node's concurrency across instances (issue 25 item 2; ARCHITECTURE.md §3.6): two emulator processes
 * on one external DynamoDB stand-in route to one simulated node whose model is slow enough that requests
 * overlap, limited to 1 and then to 4 (`FLEET_NODE_CONCURRENCY`). Clients load both instances at once;
 * a counting proxy in front of the node records the most chat requests it ever ran at the same time.
 * Each instance enforces only its own share of the node's slots, re-balanced from what the other
 * published, so the node must never run more than one request beyond its limit — and every request
 * is still served.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { type DynaliteProcess, startDynaliteProcess } from './dynalite-process';
import { eventually, type RouterProcess, startRouter } from './router-process';

const MODEL = 'llama3.2:3b';
/** Each chat holds the node this long: long enough that the clients' requests overlap. */
const HOLD_MS = 150;
const CLIENTS_PER_INSTANCE = 6;
const LOAD_MS = 5000;
/** Enough for each instance to publish (written behind, ≤ 1 s) and read the other's (every second). */
const WARM_MS = 3000;

/**
 * Passes everything to `target` and counts the chats running at once (POSTs, until their reply ends):
 * the most ever, and for how long more than `limit` ran.
 */
interface CountingProxy {
  readonly url: string;
  readonly server: Server;
  limit: number;
  running: number;
  most: number;
  /** When each chat reached the node. */
  starts: number[];
  served: number;
  overLimitMs: number;
}

async function startCountingProxy(target: string): Promise<CountingProxy> {
  const proxy: CountingProxy = {
    url: '',
    server: createServer(),
    limit: 1,
    running: 0,
    most: 0,
    served: 0,
    overLimitMs: 0,
    starts: [],
  };
  let changedAt = Date.now();
  const count = (by: number) => {
    const now = Date.now();
    if (proxy.running > proxy.limit) proxy.overLimitMs += now - changedAt;
    changedAt = now;
    proxy.running += by;
    proxy.most = Math.max(proxy.most, proxy.running);
  };
  proxy.server.on('request', (req, res) => {
    if (req.method === 'POST') {
      count(1);
      proxy.starts.push(Date.now());
      res.once('close', () => {
        count(-1);
        proxy.served += 1;
      });
    }
    const upstream = httpRequest(
      `${target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
  return Object.assign(proxy, { url: `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}` });
}

async function chat(url: string, index: number): Promise<number> {
  const response = await fetch(`${url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `request ${index}` }], stream: false }),
  });
  await response.text();
  return response.status;
}

async function nodeOnline(router: RouterProcess): Promise<void> {
  await eventually(async () => {
    const status = (await (await fetch(`${router.url}/fleet/status`)).json()) as { fleet: { nodes_online: number } };
    expect(status.fleet.nodes_online).toBe(1);
  }, 15_000);
}

/** Loads both instances at once for `LOAD_MS`; the statuses every client saw. */
async function loadBoth(routers: readonly RouterProcess[]): Promise<number[]> {
  const statuses: number[] = [];
  const started = Date.now();
  let next = 0;
  const client = async (router: RouterProcess) => {
    while (Date.now() - started < LOAD_MS) {
      next += 1;
      statuses.push(await chat(router.url, next));
    }
  };
  await Promise.all(routers.flatMap((router) => Array.from({ length: CLIENTS_PER_INSTANCE }, () => client(router))));
  return statuses;
}

let dynamo: DynaliteProcess;
let node: SimNode;
let proxy: CountingProxy;
let routers: RouterProcess[] = [];

/**
 * Two instances on one table in front of the slow node, each having routed once and had a few seconds to
 * publish its queue and read the other's: the warm pair of a real deployment. `limit` unset: the default, 1.
 */
async function warmPair(table: string, limit?: number): Promise<RouterProcess[]> {
  const pair = await Promise.all(
    ['a', 'b'].map(() =>
      startRouter({
        FLEET_NODES: `slow=${proxy.url}`,
        FLEET_DYNAMODB_ENDPOINT: dynamo.endpoint,
        FLEET_TABLE: table,
        ...(limit === undefined ? {} : { FLEET_NODE_CONCURRENCY: `slow=${limit}` }),
      }),
    ),
  );
  routers = pair;
  await Promise.all(pair.map(nodeOnline));
  for (const [index, router] of pair.entries()) expect(await chat(router.url, -1 - index)).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, WARM_MS));
  return pair;
}

beforeAll(async () => {
  dynamo = await startDynaliteProcess();
  node = await startSimNode({
    id: 'slow',
    models: CATALOG.filter((entry) => entry.name === MODEL),
    loaded: [MODEL],
    ttftMs: HOLD_MS,
    tokensPerSecond: Number.POSITIVE_INFINITY,
    numParallel: 16,
  });
  proxy = await startCountingProxy(node.url);
}, 30_000);

afterEach(async () => {
  await Promise.all(routers.map((router) => router.stop()));
  routers = [];
});

afterAll(async () => {
  await new Promise((resolve) => proxy?.server.close(resolve));
  await node?.close();
  await dynamo?.stop();
});

describe('one node limited across two instances on one table', () => {
  it.each([1, 4])(
    'runs at most one request beyond a limit of %i, and serves every request',
    async (limit) => {
      await warmPair(`fleet-slots-${limit}`, limit);
      Object.assign(proxy, { limit, most: 0, served: 0, overLimitMs: 0 });

      const started = Date.now();
      const statuses = await loadBoth(routers);
      const loadedMs = Date.now() - started;

      console.log(
        `instance concurrency, limit ${limit}: ${statuses.length} requests through 2 instances ` +
          `(${2 * CLIENTS_PER_INSTANCE} clients, ${loadedMs} ms); most at the node at once ${proxy.most}, ` +
          `over the limit for ${proxy.overLimitMs} ms`,
      );
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(proxy.served).toBe(statuses.length);
      expect(proxy.most).toBeGreaterThanOrEqual(limit);
      expect(proxy.most).toBeLessThanOrEqual(limit + 1);
      // One request beyond the limit is the worst case of a moment (both instances start on their one
      // request before either has seen the other ask: a write, 100 ms and a read), not the node's usual load.
      expect(proxy.overLimitMs).toBeLessThan(loadedMs / 6);
    },
    60_000,
  );

  it('lets a client that alternates between the instances go at once: a freed slot is seen in time', async () => {
    await warmPair('fleet-slots-alternating');
    const timed = async (url: string, index: number) => {
      const started = Date.now();
      expect(await chat(url, index)).toBe(200);
      return Date.now() - started;
    };
    const same: number[] = [];
    for (let index = 0; index < 6; index += 1) same.push(await timed(routers[0]?.url ?? '', index));
    const alternating: number[] = [];
    for (let index = 0; index < 8; index += 1) alternating.push(await timed(routers[index % 2]?.url ?? '', index));

    const median = [...same].sort((x, y) => x - y)[same.length >> 1] ?? 0;
    console.log(
      `alternating instances, limit 1: one instance ${same.join(', ')} ms; alternating ${alternating.join(', ')} ms`,
    );
    // Held back until the other's slot is seen free: a read of the table (~100 ms; 600 ms was seen with
    // another suite on the same two cores), never the seconds of a refresh missed or a slot held over.
    expect(Math.max(...alternating)).toBeLessThan(median + 1000);
  }, 60_000);

  it('lets a burst on one instance, the other idle, run the whole limit once its start is confirmed', async () => {
    const limit = 4;
    await warmPair('fleet-slots-burst', limit);
    Object.assign(proxy, { limit, most: 0, served: 0, overLimitMs: 0, starts: [] });

    const sent = Date.now();
    const burst = 2 * limit;
    const statuses = await Promise.all(Array.from({ length: burst }, (_, index) => chat(routers[0]?.url ?? '', index)));

    const lags = proxy.starts.map((at) => at - sent);
    console.log(
      `burst of ${burst} on one instance, the other idle, limit ${limit}: at the node after ${lags.join(', ')} ms`,
    );
    expect(statuses).toEqual(Array(burst).fill(200));
    // One at once; the rest once the start is confirmed (a write, 100 ms, a read): then the whole limit.
    expect(proxy.most).toBe(limit);
    expect(lags[limit - 1]).toBeLessThan(1000);
  }, 60_000);
});
