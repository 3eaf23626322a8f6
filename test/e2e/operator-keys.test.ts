/**
 * Operator keys end to end (issue 46): the built emulator with client, operator and node keys, a node
 * agent joined with its node key. Every write route of every family — Ollama's pull, delete, copy,
 * create, push; the dashboard's settings, benchmark start and cancel, pull, delete — with no key, a
 * client key, a node key and an operator key; the official Ollama client refused with 403; an operator's
 * delete and a client's chat traced with their keys' ids; the start-up rules: a key in two lists stops
 * the router naming the variable, client keys without operator keys give one warning, no keys stay open.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ollama } from 'ollama';
import { CATALOG, type SimAgent, startSimAgent } from '../../emulator/sim';
import { familyOf, shapeProblem } from './family-shapes';
import { eventually, type RouterProcess, startRouter } from './router-process';

const CLIENT_KEY = 'sk-app-0001';
const OPERATOR_KEY = 'sk-ops-0001';
const NODE_KEY = 'nk-0001';
const NODE = 'keyed-node';
const KEPT = 'llama3.2:3b';
const DOOMED = 'qwen3:8b';

let router: RouterProcess;
let agent: SimAgent;

const bearer = (key: string | undefined): Record<string, string> =>
  key === undefined ? {} : { authorization: `Bearer ${key}` };

async function modelsListed(key: string): Promise<string[]> {
  const answer = await fetch(`${router.url}/api/tags`, { headers: bearer(key) });
  const body = (await answer.json()) as { models: { name: string }[] };
  return body.models.map((model) => model.name);
}

beforeAll(async () => {
  router = await startRouter({
    FLEET_API_KEYS: `team-a:${CLIENT_KEY}`,
    FLEET_ADMIN_KEYS: `ops:${OPERATOR_KEY}`,
    FLEET_NODE_KEYS: NODE_KEY,
  });
  agent = await startSimAgent({
    nodeId: NODE,
    routerUrl: router.url,
    intervalMs: 60_000,
    nodeKey: NODE_KEY,
    ollamaOptions: { id: NODE, models: CATALOG.filter((entry) => [KEPT, DOOMED].includes(entry.name)) },
  });
  await agent.sendHeartbeat();
  await eventually(async () => expect(await modelsListed(CLIENT_KEY)).toEqual(expect.arrayContaining([KEPT, DOOMED])));
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await router?.stop();
});

interface WriteRoute {
  readonly method: 'POST' | 'DELETE';
  readonly path: string;
  /** A body the route answers without changing anything: a field missing, an unknown model, no run. */
  readonly body: object;
  /** What it answers an operator. */
  readonly answer: number;
}

const WRITE_ROUTES: readonly WriteRoute[] = [
  { method: 'POST', path: '/api/pull', body: {}, answer: 400 },
  { method: 'DELETE', path: '/api/delete', body: { model: 'nowhere:1b' }, answer: 404 },
  { method: 'POST', path: '/api/copy', body: { source: KEPT }, answer: 400 },
  { method: 'POST', path: '/api/create', body: { model: 'mine' }, answer: 501 },
  { method: 'POST', path: '/api/push', body: { model: KEPT }, answer: 501 },
  { method: 'POST', path: '/dashboard/api/settings', body: { nonsense: true }, answer: 400 },
  { method: 'POST', path: '/dashboard/api/benchmarks/start', body: { duration: 0 }, answer: 400 },
  { method: 'POST', path: '/dashboard/api/benchmarks/cancel', body: {}, answer: 200 },
  { method: 'POST', path: '/dashboard/api/pull', body: {}, answer: 400 },
  { method: 'POST', path: '/dashboard/api/delete', body: { node_id: NODE }, answer: 400 },
];

async function send(route: WriteRoute, key?: string): Promise<{ status: number; body: unknown }> {
  const answer = await fetch(`${router.url}${route.path}`, {
    method: route.method,
    headers: { 'content-type': 'application/json', ...bearer(key) },
    body: JSON.stringify(route.body),
  });
  return { status: answer.status, body: (await answer.json()) as unknown };
}

const message = (body: unknown): string => {
  const error = Reflect.get(body as object, 'error') as unknown;
  return typeof error === 'string' ? error : String(Reflect.get(error as object, 'message'));
};

describe('the changes to the fleet, by key', () => {
  it.each(WRITE_ROUTES)('$method $path: 401 without a key and with a node key', async (route) => {
    const none = await send(route);
    const node = await send(route, NODE_KEY);

    expect([none.status, shapeProblem(familyOf(route.path), none.body), message(none.body)]).toEqual([
      401,
      undefined,
      'an API key is required',
    ]);
    expect([node.status, message(node.body)]).toEqual([401, 'the API key is not valid']);
  });

  it.each(WRITE_ROUTES)('$method $path: 403 in the family shape for a client key', async (route) => {
    const reply = await send(route, CLIENT_KEY);

    expect(reply.status).toBe(403);
    expect(shapeProblem(familyOf(route.path), reply.body)).toBeUndefined();
    expect(message(reply.body)).toContain('needs an operator key (FLEET_ADMIN_KEYS)');
  });

  it.each(WRITE_ROUTES)('$method $path: the route itself answers an operator key', async (route) => {
    expect((await send(route, OPERATOR_KEY)).status).toBe(route.answer);
  });

  it("refuses the official client's delete and pull to a client key with 403", async () => {
    const client = new Ollama({ host: router.url, headers: bearer(CLIENT_KEY) });

    const deleted = await client.delete({ model: DOOMED }).then(
      () => undefined,
      (error: unknown) => Reflect.get(error as object, 'status_code'),
    );
    const pulled = await client.pull({ model: 'llama3.2:1b', stream: false }).then(
      () => undefined,
      (error: unknown) => Reflect.get(error as object, 'status_code'),
    );

    expect([deleted, pulled]).toEqual([403, 403]);
    expect(await modelsListed(CLIENT_KEY)).toContain(DOOMED);
  });
});

describe('who did it', () => {
  interface TraceRow {
    original_format: string;
    original_model: string;
    status: string;
    key: string | null;
    app: string | null;
    node_id: string | null;
  }

  async function traces(): Promise<TraceRow[]> {
    const answer = await fetch(`${router.url}/dashboard/api/traces?limit=100`, { headers: bearer(CLIENT_KEY) });
    return ((await answer.json()) as { traces: TraceRow[] }).traces;
  }

  it("traces an operator's delete and a client's chat with their keys' names, never the keys", async () => {
    const operator = new Ollama({ host: router.url, headers: bearer(OPERATOR_KEY) });
    const client = new Ollama({ host: router.url, headers: bearer(CLIENT_KEY) });

    await operator.delete({ model: DOOMED });
    await client.chat({ model: KEPT, messages: [{ role: 'user', content: 'hello' }] });

    const rows = await eventually(async () => {
      const found = await traces();
      expect(found.map((row) => row.original_format)).toEqual(expect.arrayContaining(['delete', 'ollama-chat']));
      return found;
    }, 15_000);
    expect(rows.find((row) => row.original_format === 'delete' && row.original_model === DOOMED)).toMatchObject({
      status: 'completed',
      key: 'ops',
      node_id: NODE,
    });
    expect(rows.find((row) => row.original_format === 'ollama-chat')).toMatchObject({
      key: 'team-a',
      app: 'key:team-a',
    });
    expect(JSON.stringify(rows)).not.toContain(OPERATOR_KEY);
    expect(JSON.stringify(rows)).not.toContain(CLIENT_KEY);
    expect(await modelsListed(CLIENT_KEY)).not.toContain(DOOMED);
  }, 30_000);
});

describe('start-up', () => {
  it('refuses to start with a key in two lists, naming the variable', async () => {
    await expect(startRouter({ FLEET_API_KEYS: 'sk-same', FLEET_ADMIN_KEYS: 'ops:sk-same' })).rejects.toThrow(
      'FLEET_ADMIN_KEYS: a key is also in FLEET_API_KEYS',
    );
  }, 30_000);

  it('warns once at start when client keys are set and operator keys are not, and refuses every change', async () => {
    const started = await startRouter({ FLEET_API_KEYS: CLIENT_KEY, FLEET_NODE_KEYS: NODE_KEY });
    try {
      await eventually(async () => expect(started.output()).toContain('FLEET_ADMIN_KEYS is not'));
      const reply = await fetch(`${started.url}/dashboard/api/settings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(CLIENT_KEY) },
        body: JSON.stringify({ transcription: true }),
      });
      const body = (await reply.json()) as unknown;
      await fetch(`${started.url}/api/delete`, {
        method: 'DELETE',
        headers: bearer(CLIENT_KEY),
        body: JSON.stringify({ model: 'x' }),
      });

      expect(reply.status).toBe(403);
      expect(message(body)).toContain('this router has none configured (FLEET_ADMIN_KEYS)');
      expect(started.output().split('FLEET_ADMIN_KEYS is not').length - 1).toBe(1);
    } finally {
      await started.stop();
    }
  }, 30_000);

  it('stays open with no keys at all, and warns of none', async () => {
    const started = await startRouter();
    try {
      const reply = await fetch(`${started.url}/dashboard/api/settings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ transcription: true }),
      });
      const whoami = await fetch(`${started.url}/dashboard/api/whoami`);

      expect(reply.status).toBe(200);
      expect(await whoami.json()).toEqual({ role: 'open' });
      expect(started.output()).not.toContain('FLEET_ADMIN_KEYS');
    } finally {
      await started.stop();
    }
  }, 30_000);
});
