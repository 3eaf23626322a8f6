/**
 * Who may change the fleet (issue 46, ARCHITECTURE.md §3.10), through the ollama and dashboard handlers in
 * process on both hosts, on the in-process table: every write route — Ollama's pull, delete, copy, create
 * and push; the dashboard's settings, benchmark start and cancel, pull and delete — answers no key and a
 * node key 401, a client key 403 in the family's shape saying an operator key is needed (naming
 * FLEET_ADMIN_KEYS when none is set), and runs for an operator key. Reads and routed requests stay open
 * to client keys and take operator keys too; `GET /dashboard/api/whoami` says which role a key has; a
 * change is traced with the id of the key that made it.
 */

import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { routes as dashboardRoutes } from '../../functions/dashboard';
import { routes as ollamaRoutes } from '../../functions/ollama';
import type { Trace } from '../../lib/core/analytics/trace-record';
import { initServices, type Services } from '../../lib/instance';
import {
  createBufferedHandler,
  createStreamingHandler,
  type HandlerOptions,
  type RouteTable,
} from '../../lib/services/http/handler';
import type { LambdaHttpEvent } from '../../lib/services/http/request';
import { loadConfig } from '../../lib/services/platform/config';
import { ensureTable } from '../../lib/services/store/ensure-table';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { httpResponseStreamFrom, RecordingStream } from '../helpers/recording-stream';
import { type StoreFixture, startStore, uniqueTableName } from '../helpers/store-fixture';

const CLIENT_KEY = 'sk-client-0001';
const OPERATOR_KEY = 'sk-operator-0001';
const NODE_KEY = 'nk-node-0001';

let store: StoreFixture;
const opened: Services[] = [];

beforeAll(async () => {
  store = await startStore('operator-keys');
});

afterAll(async () => {
  await closeServices(...opened);
  await store.close();
});

interface Reply {
  readonly statusCode: number;
  readonly body: string;
}

type Serve = (event: LambdaHttpEvent) => Promise<Reply>;

/** A route table wrapped as the Lambdas wrap it, with the instance's keys, on one host. */
const HOSTS: readonly (readonly [string, (routes: RouteTable, options: () => HandlerOptions) => Serve])[] = [
  ['buffered', (routes, options) => createBufferedHandler(routes, options)],
  [
    'streaming',
    (routes, options) => async (event) => {
      const stream = new RecordingStream();
      await createStreamingHandler(routes, options, httpResponseStreamFrom)(event, stream);
      const reply = stream.reply();
      return { statusCode: reply.statusCode, body: reply.body.toString('utf8') };
    },
  ],
];

/** Fresh services on this config and a table of their own, and both handlers on `host`. */
async function router(env: Record<string, string>, host: (typeof HOSTS)[number][1]) {
  const table = uniqueTableName('operator-keys');
  await ensureTable(store.client, table);
  const services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: table, ...env }));
  opened.push(services);
  // The instance's keys, as lib/fleet-instance's handlerOptions gives them to every handler.
  const { apiKeys, adminKeys, nodeKeys } = services.config;
  const options = () => ({ apiKeys, adminKeys, nodeKeys });
  const ollama = host(ollamaRoutes(services), options);
  const dashboard = host(dashboardRoutes(services), options);
  return { services, ollama, dashboard };
}

type Family = 'ollama' | 'dashboard';

interface WriteRoute {
  readonly family: Family;
  readonly method: string;
  readonly path: string;
  /** A body the route answers by itself, with no node behind it. */
  readonly body: object;
  /** What the route answers an operator: its own answer, never 401 or 403. */
  readonly answer: number;
}

/** Every route that changes the fleet (serverless.yml), each with a body it answers without a node. */
const WRITE_ROUTES: readonly WriteRoute[] = [
  { family: 'ollama', method: 'POST', path: '/api/pull', body: {}, answer: 400 },
  { family: 'ollama', method: 'DELETE', path: '/api/delete', body: { model: 'nowhere:1b' }, answer: 404 },
  { family: 'ollama', method: 'POST', path: '/api/copy', body: { source: 'nowhere:1b' }, answer: 400 },
  { family: 'ollama', method: 'POST', path: '/api/create', body: { model: 'mine' }, answer: 501 },
  { family: 'ollama', method: 'POST', path: '/api/push', body: { model: 'mine' }, answer: 501 },
  { family: 'dashboard', method: 'POST', path: '/dashboard/api/settings', body: { transcription: true }, answer: 200 },
  { family: 'dashboard', method: 'POST', path: '/dashboard/api/benchmarks/start', body: { mode: 'x' }, answer: 400 },
  { family: 'dashboard', method: 'POST', path: '/dashboard/api/benchmarks/cancel', body: {}, answer: 200 },
  { family: 'dashboard', method: 'POST', path: '/dashboard/api/pull', body: {}, answer: 400 },
  { family: 'dashboard', method: 'POST', path: '/dashboard/api/delete', body: {}, answer: 400 },
];

const event = (route: Pick<WriteRoute, 'method' | 'path' | 'body'>, key?: string) =>
  makeHttpEvent({
    method: route.method,
    path: route.path,
    body: route.body,
    headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
  });

/** The error's words in the family's shape: Ollama `{"error"}`, the dashboard's OpenAI shape. */
function errorOf(family: Family, body: string): { message: string; type?: string; code?: string } {
  const parsed = JSON.parse(body) as { error: string | { message: string; type: string; code: string } };
  if (family === 'ollama') {
    expect(typeof parsed.error).toBe('string');
    return { message: parsed.error as string };
  }
  expect(typeof parsed.error).toBe('object');
  return parsed.error as { message: string; type: string; code: string };
}

describe.each(HOSTS)('changes to the fleet (%s host)', (_name, host) => {
  describe('with client, operator and node keys', () => {
    let serve: Record<Family, Serve>;
    beforeAll(async () => {
      const { ollama, dashboard } = await router(
        { FLEET_API_KEYS: `app:${CLIENT_KEY}`, FLEET_ADMIN_KEYS: OPERATOR_KEY, FLEET_NODE_KEYS: NODE_KEY },
        host,
      );
      serve = { ollama, dashboard };
    });

    it.each(WRITE_ROUTES)('$method $path: no key 401, a node key 401', async (route) => {
      const none = await serve[route.family](event(route));
      const node = await serve[route.family](event(route, NODE_KEY));

      expect([none.statusCode, errorOf(route.family, none.body).message]).toEqual([401, 'an API key is required']);
      expect([node.statusCode, errorOf(route.family, node.body).message]).toEqual([401, 'the API key is not valid']);
    });

    it.each(WRITE_ROUTES)('$method $path: a client key 403 saying an operator key is needed', async (route) => {
      const reply = await serve[route.family](event(route, CLIENT_KEY));

      expect(reply.statusCode).toBe(403);
      const error = errorOf(route.family, reply.body);
      expect(error.message).toContain('needs an operator key (FLEET_ADMIN_KEYS)');
      if (route.family === 'dashboard') {
        expect([error.type, error.code]).toEqual(['permission_error', 'operator_key_required']);
      }
    });

    it.each(WRITE_ROUTES)('$method $path: an operator key runs the route', async (route) => {
      const reply = await serve[route.family](event(route, OPERATOR_KEY));

      expect(reply.statusCode).toBe(route.answer);
    });

    it('keeps reads and routed requests to client keys, and takes operator keys there too', async () => {
      for (const key of [CLIENT_KEY, OPERATOR_KEY]) {
        const tags = await serve.ollama(event({ method: 'GET', path: '/api/tags', body: {} }, key));
        const settings = await serve.dashboard(
          event({ method: 'GET', path: '/dashboard/api/settings', body: {} }, key),
        );
        expect([key, tags.statusCode, settings.statusCode]).toEqual([key, 200, 200]);
      }
      const chat = await serve.ollama(
        event({ method: 'POST', path: '/api/chat', body: { model: 'nowhere:1b', messages: [] } }, CLIENT_KEY),
      );
      expect(chat.statusCode).toBe(404);
    });

    it.each([
      [OPERATOR_KEY, 'operator'],
      [CLIENT_KEY, 'client'],
    ])('tells the page which role %s has, and nothing more', async (key, role) => {
      const reply = await serve.dashboard(event({ method: 'GET', path: '/dashboard/api/whoami', body: {} }, key));

      expect(reply.statusCode).toBe(200);
      expect(JSON.parse(reply.body)).toEqual({ role });
    });

    it('refuses whoami to a request with no key or a node key, as every read', async () => {
      const whoami = { method: 'GET', path: '/dashboard/api/whoami', body: {} };
      expect((await serve.dashboard(event(whoami))).statusCode).toBe(401);
      expect((await serve.dashboard(event(whoami, NODE_KEY))).statusCode).toBe(401);
    });
  });

  describe('with client keys and no operator keys', () => {
    it.each(WRITE_ROUTES)('$method $path: a client key 403 naming FLEET_ADMIN_KEYS as unset', async (route) => {
      const { ollama, dashboard } = await router({ FLEET_API_KEYS: CLIENT_KEY, FLEET_NODE_KEYS: NODE_KEY }, host);
      const serve = { ollama, dashboard };

      const reply = await serve[route.family](event(route, CLIENT_KEY));

      expect(reply.statusCode).toBe(403);
      expect(errorOf(route.family, reply.body).message).toContain(
        'needs an operator key, and this router has none configured (FLEET_ADMIN_KEYS)',
      );
    });
  });

  describe('with operator keys only', () => {
    it('leaves reads open and closes the changes to anyone without an operator key', async () => {
      const { ollama, dashboard } = await router({ FLEET_ADMIN_KEYS: `ops:${OPERATOR_KEY}` }, host);
      const settings = { method: 'POST', path: '/dashboard/api/settings', body: { image_generation: true } };

      const read = await ollama(event({ method: 'GET', path: '/api/tags', body: {} }));
      const none = await dashboard(event(settings));
      const stranger = await dashboard(event(settings, 'sk-unknown'));
      const operator = await dashboard(event(settings, OPERATOR_KEY));
      const whoami = await dashboard(event({ method: 'GET', path: '/dashboard/api/whoami', body: {} }));

      expect([read.statusCode, none.statusCode, stranger.statusCode, operator.statusCode]).toEqual([
        200, 401, 401, 200,
      ]);
      expect(JSON.parse(whoami.body)).toEqual({ role: 'client' });
    });
  });

  describe('with no keys at all', () => {
    it.each(WRITE_ROUTES)('$method $path: open, as before', async (route) => {
      const { ollama, dashboard } = await router({}, host);
      const serve = { ollama, dashboard };

      expect((await serve[route.family](event(route))).statusCode).toBe(route.answer);
    });

    it('tells the page it is open', async () => {
      const { dashboard } = await router({}, host);

      const reply = await dashboard(event({ method: 'GET', path: '/dashboard/api/whoami', body: {} }));

      expect(JSON.parse(reply.body)).toEqual({ role: 'open' });
    });
  });
});

describe('who made a change', () => {
  it('traces a settings write and a delete with the id of the operator key, never the key', async () => {
    const { services, ollama, dashboard } = await router(
      { FLEET_API_KEYS: CLIENT_KEY, FLEET_ADMIN_KEYS: `ops-team:${OPERATOR_KEY}`, FLEET_NODE_KEYS: NODE_KEY },
      (routes, options) => createBufferedHandler(routes, options),
    );
    const recorded: Trace[] = [];
    jest.spyOn(services.traces, 'record').mockImplementation((trace) => {
      recorded.push(trace);
    });

    await dashboard(
      event({ method: 'POST', path: '/dashboard/api/settings', body: { transcription: true } }, OPERATOR_KEY),
    );
    await ollama(event({ method: 'DELETE', path: '/api/delete', body: { model: 'nowhere:1b' } }, OPERATOR_KEY));
    await ollama(event({ method: 'DELETE', path: '/api/delete', body: { model: 'nowhere:1b' } }, CLIENT_KEY));

    expect(recorded).toEqual([
      expect.objectContaining({ style: 'settings', status: 'completed', key: 'ops-team' }),
      expect.objectContaining({
        style: 'delete',
        status: 'failed',
        key: 'ops-team',
        requestedModel: 'nowhere:1b',
        error: "model 'nowhere:1b' not found",
      }),
    ]);
    expect(JSON.stringify(recorded)).not.toContain(OPERATOR_KEY);
  });
});
