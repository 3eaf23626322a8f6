/**
 * A bounded load with faults that counts traces (issue 19 item 9): the built emulator on an external
 * DynamoDB in front of three nodes serving one model, one of them behind a scripted proxy that fails
 * one work request in ten (a 500, a reset connection, or a reply cut after its first chunk). Sixteen
 * clients send chats in all three families, streamed and not, each request tagged with its own number
 * (`X-Service-Tags`); then the traces the router wrote to the table are read back, and every request
 * must have exactly one final trace — none lost, none twice — with each failed attempt that moved on
 * to a peer as a `retried` trace of its own.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { seededRandom } from '../../emulator/sim/hash';
import { createDynamoClient } from '../../lib/services/store/client';
import { dayOf } from '../../lib/services/store/keys';
import { openTable } from '../../lib/services/store/table';
import { type DynaliteProcess, startDynaliteProcess } from './dynalite-process';
import type { Family } from './family-shapes';
import { eventually, type RouterProcess, startRouter } from './router-process';

const MODEL = 'llama3.2:3b';
const TABLE = 'fleet-load';
const REQUESTS = Number(process.env['LOAD_REQUESTS'] ?? 2000);
const CONCURRENCY = 16;
/** The run stops sending after this long even when fewer requests went out. */
const MAX_SENDING_MS = 30_000;
const FAULT_RATE = 0.1;
const SEED = 1919;
const TAG_PREFIX = `load-${Date.now()}-`;

interface InjectedFaults {
  status500: number;
  reset: number;
  cut: number;
  passed: number;
}

/** A scripted node: passes everything to `target`, but fails `rate` of the work requests (POSTs). */
async function startFaultyProxy(
  target: string,
  rate: number,
): Promise<{ url: string; faults: InjectedFaults; server: Server }> {
  const random = seededRandom(SEED);
  const faults: InjectedFaults = { status500: 0, reset: 0, cut: 0, passed: 0 };
  const server = createServer((req, res) => {
    const roll = req.method === 'POST' ? random() : 1;
    if (roll < rate / 3) {
      faults.status500 += 1;
      req.resume();
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"injected failure"}');
      return;
    }
    if (roll < (2 * rate) / 3) {
      faults.reset += 1;
      req.socket.destroy();
      return;
    }
    const cut = roll < rate;
    if (cut) faults.cut += 1;
    else if (req.method === 'POST') faults.passed += 1;
    const upstream = httpRequest(
      `${target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers },
      (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        if (!cut) {
          reply.pipe(res);
          return;
        }
        reply.once('data', (chunk: Buffer) => {
          res.write(chunk);
          res.destroy();
          reply.destroy();
        });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, faults, server };
}

const PATHS: Readonly<Record<Family, string>> = {
  ollama: '/api/chat',
  openai: '/v1/chat/completions',
  anthropic: '/v1/messages',
};
const FAMILIES: readonly Family[] = ['ollama', 'openai', 'anthropic'];

interface Sent {
  readonly index: number;
  readonly status: number;
  readonly inBandError: boolean;
}

async function send(url: string, index: number): Promise<Sent> {
  const family = FAMILIES[index % FAMILIES.length] ?? 'ollama';
  const stream = index % 2 === 1;
  const messages = [{ role: 'user', content: `load request ${index}` }];
  const body =
    family === 'ollama' ? { model: MODEL, messages, stream } : { model: MODEL, messages, stream, max_tokens: 16 };
  const response = await fetch(`${url}${PATHS[family]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-tags': `${TAG_PREFIX}${index}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const inBandError = stream && (text.includes('"error"') || text.includes('event: error'));
  return { index, status: response.status, inBandError: response.status === 200 && inBandError };
}

interface StoredTrace {
  readonly requestId: string;
  readonly status: string;
  readonly tags: readonly string[];
}

let dynamo: DynaliteProcess;
let nodes: SimNode[];
let proxy: Awaited<ReturnType<typeof startFaultyProxy>>;
let router: RouterProcess;

beforeAll(async () => {
  dynamo = await startDynaliteProcess();
  const options = { models: CATALOG.filter((entry) => entry.name === MODEL), loaded: [MODEL], ttftMs: 2 };
  nodes = await Promise.all(
    ['a', 'b', 'flaky'].map((id) => startSimNode({ id, ...options, tokensPerSecond: 2000, numParallel: 4 })),
  );
  const [a, b, flaky] = nodes as [SimNode, SimNode, SimNode];
  proxy = await startFaultyProxy(flaky.url, FAULT_RATE);
  router = await startRouter({
    FLEET_NODES: `a=${a.url},b=${b.url},flaky=${proxy.url}`,
    FLEET_DYNAMODB_ENDPOINT: dynamo.endpoint,
    FLEET_TABLE: TABLE,
    FLEET_NODE_CONCURRENCY: 'a=4,b=4,flaky=4',
  });
  await eventually(async () => {
    const status = (await (await fetch(`${router.url}/fleet/status`)).json()) as { fleet: { nodes_online: number } };
    expect(status.fleet.nodes_online).toBe(3);
  });
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await new Promise((resolve) => proxy?.server.close(resolve));
  await Promise.all((nodes ?? []).map((node) => node.close()));
  await dynamo?.stop();
});

/** Every trace of this run in the table now. */
async function tracesOfThisRun(days: readonly string[]): Promise<StoredTrace[]> {
  const table = openTable(createDynamoClient({ dynamodbEndpoint: dynamo.endpoint }), TABLE);
  const pages = (await Promise.all(days.map((day) => table.queryDocs(`TRACE#${day}`)))).flat();
  return pages
    .flatMap((page) => (JSON.parse(page.doc ?? '{"traces":[]}') as { traces: StoredTrace[] }).traces)
    .filter((trace) => trace.tags.some((tag) => tag.startsWith(TAG_PREFIX)));
}

describe('a load with one node failing a tenth of its work', () => {
  it('traces every request exactly once, and every failed attempt that moved on once more', async () => {
    const started = Date.now();
    const sent: Sent[] = [];
    let next = 0;
    const worker = async () => {
      while (next < REQUESTS && Date.now() - started < MAX_SENDING_MS) {
        const index = next;
        next += 1;
        sent.push(await send(router.url, index));
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const sendingMs = Date.now() - started;
    const days = [...new Set([dayOf(started), dayOf(Date.now())])];

    const finals = await eventually(async () => {
      const traces = (await tracesOfThisRun(days)).filter((trace) => trace.status !== 'retried');
      expect(traces.length).toBeGreaterThanOrEqual(sent.length);
      return traces;
    }, 30_000);
    // A second read a moment later: nothing more arrives (no request is traced twice, late).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const traces = await tracesOfThisRun(days);
    const finalTraces = traces.filter((trace) => trace.status !== 'retried');
    const retried = traces.filter((trace) => trace.status === 'retried');
    const tracedIndexes = finalTraces.flatMap((trace) =>
      trace.tags.filter((tag) => tag.startsWith(TAG_PREFIX)).map((tag) => Number(tag.slice(TAG_PREFIX.length))),
    );
    const byStatus = (values: readonly (string | number)[]) =>
      Object.fromEntries([...new Set(values)].map((value) => [value, values.filter((v) => v === value).length]));
    console.log(
      `load: ${sent.length} requests at concurrency ${CONCURRENCY} in ${sendingMs} ms; ` +
        `client statuses ${JSON.stringify(byStatus(sent.map((entry) => entry.status)))}, ` +
        `in-band errors ${sent.filter((entry) => entry.inBandError).length}; ` +
        `faults injected ${JSON.stringify(proxy.faults)}; ` +
        `final traces ${finalTraces.length} ${JSON.stringify(byStatus(finalTraces.map((trace) => trace.status)))}, ` +
        `retried attempts ${retried.length}; traces read in ${Date.now() - started - sendingMs} ms`,
    );

    expect(finals.length).toBeGreaterThanOrEqual(sent.length);
    expect(sent.length).toBeGreaterThanOrEqual(Math.min(REQUESTS, 100));
    expect(proxy.faults.status500 + proxy.faults.reset + proxy.faults.cut).toBeGreaterThan(0);
    expect([...tracedIndexes].sort((x, y) => x - y)).toEqual(sent.map((entry) => entry.index).sort((x, y) => x - y));
    expect(new Set(finalTraces.map((trace) => trace.requestId)).size).toBe(finalTraces.length);
    // Only the flaky node fails, and each of its failures can move one request on once at most.
    expect(retried.length).toBeLessThanOrEqual(proxy.faults.status500 + proxy.faults.reset + proxy.faults.cut);
    expect(sent.filter((entry) => entry.status !== 200).map((entry) => entry.status)).toEqual([]);
  }, 90_000);
});
