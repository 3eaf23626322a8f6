/**
 * Who may register, move and drain nodes (issue 19 item 2, ARCHITECTURE.md §3.10 and §8.2), through the fleet
 * and OpenAI handlers in process: node keys open the heartbeats and nothing else, client keys never
 * open them, and without node keys a heartbeat cannot move a live node to another address or drain it
 * from elsewhere. Listed nodes belong to the poller whatever key a heartbeat carries.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type SimAgent, type SimNode, startSimAgent, startSimNode } from '../../emulator/sim';
import { routes as fleetRoutes } from '../../functions/fleet';
import { routes as openaiRoutes } from '../../functions/openai';
import { handlerOptions, initServices, type Services } from '../../lib/instance';
import { createBufferedHandler } from '../../lib/services/http/handler';
import { loadConfig } from '../../lib/services/platform/config';
import { ensureTable } from '../../lib/services/store/ensure-table';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { makeHeartbeat } from '../helpers/factories';
import { type StoreFixture, startStore, uniqueTableName } from '../helpers/store-fixture';

const CLIENT_KEY = 'client-key-0001';
const NODE_KEY = 'node-key-0001';
const STRANGER = '10.0.0.66';

let store: StoreFixture;
let node: SimNode;
let agent: SimAgent;
const opened: Services[] = [];

beforeAll(async () => {
  store = await startStore('heartbeat-credentials');
  node = await startSimNode({
    id: 'studio',
    loaded: ['llama3.2:3b'],
    ttftMs: 0,
    tokensPerSecond: Number.POSITIVE_INFINITY,
  });
  // An agent that sends nothing by itself: its payload is what a real agent on the node's machine sends.
  agent = await startSimAgent({ nodeId: 'studio', ollama: node });
});

afterAll(async () => {
  await closeServices(...opened);
  await agent.stop();
  await node.close();
  await store.close();
});

afterEach(() => {
  jest.restoreAllMocks();
});

/** Fresh services on this config and a table of their own, and the handlers wrapped as the Lambdas are. */
async function router(env: Record<string, string>) {
  const table = uniqueTableName('heartbeat-credentials');
  await ensureTable(store.client, table);
  const services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: table, ...env }));
  opened.push(services);
  return {
    services,
    fleet: createBufferedHandler(fleetRoutes(services), handlerOptions),
    openai: createBufferedHandler(openaiRoutes(services), handlerOptions),
  };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

function heartbeat(body: object, options: { sourceIp?: string; headers?: Record<string, string>; path?: string }) {
  return makeHttpEvent({
    method: 'POST',
    path: options.path ?? '/heartbeat',
    body,
    sourceIp: options.sourceIp ?? '127.0.0.1',
    headers: options.headers ?? {},
  });
}

/** The agent's heartbeat under another id, as sent from the node's machine. */
const ownHeartbeat = (nodeId: string) => ({ ...agent.payload(), node_id: nodeId });

/** The same node id claimed from another machine. */
const strangerHeartbeat = (nodeId: string) => ({
  ...agent.payload(),
  node_id: nodeId,
  ollama_host: `http://${STRANGER}:11434`,
  lan_ip: STRANGER,
});

const chat = (headers: Record<string, string> = {}) =>
  makeHttpEvent({
    method: 'POST',
    path: '/v1/chat/completions',
    headers,
    body: { model: 'llama3.2:3b', messages: [{ role: 'user', content: 'hello' }] },
  });

describe('heartbeat credentials', () => {
  describe('with client and node keys', () => {
    it.each(['/heartbeat', '/fleet/heartbeat'])(
      'refuses a client key on %s with 401 in the OpenAI shape',
      async (path) => {
        const { fleet, services } = await router({ FLEET_API_KEYS: CLIENT_KEY, FLEET_NODE_KEYS: NODE_KEY });

        const reply = await fleet(heartbeat(ownHeartbeat('keyed-client'), { path, headers: bearer(CLIENT_KEY) }));

        expect(reply.statusCode).toBe(401);
        expect(JSON.parse(reply.body)).toEqual({
          error: {
            message: 'the API key is not valid',
            type: expect.any(String),
            param: null,
            code: 'invalid_api_key',
          },
        });
        expect(await services.registry.record('keyed-client')).toBeUndefined();
      },
    );

    it.each([
      ['Authorization: Bearer', bearer(NODE_KEY)],
      ['x-api-key', { 'x-api-key': NODE_KEY }],
    ])('accepts a node key sent as %s on the heartbeat', async (_name, headers) => {
      const { fleet, services } = await router({ FLEET_API_KEYS: CLIENT_KEY, FLEET_NODE_KEYS: NODE_KEY });

      const reply = await fleet(heartbeat(ownHeartbeat('keyed-node'), { headers }));

      expect(reply.statusCode).toBe(200);
      expect(JSON.parse(reply.body)).toMatchObject({ status: 'ok', node_id: 'keyed-node', node_status: 'online' });
      expect((await services.registry.record('keyed-node'))?.url).toBe(node.url);
    });

    it('refuses a node key on /v1/chat/completions and on the status view', async () => {
      const { fleet, openai } = await router({ FLEET_API_KEYS: CLIENT_KEY, FLEET_NODE_KEYS: NODE_KEY });

      const chatReply = await openai(chat(bearer(NODE_KEY)));
      const statusReply = await fleet(makeHttpEvent({ path: '/fleet/status', headers: bearer(NODE_KEY) }));

      expect(chatReply.statusCode).toBe(401);
      expect(JSON.parse(chatReply.body)).toMatchObject({ error: { code: 'invalid_api_key' } });
      expect(statusReply.statusCode).toBe(401);
    });

    it('lets a node key move its node to a new address and drain it from anywhere', async () => {
      const { fleet, services } = await router({ FLEET_API_KEYS: CLIENT_KEY, FLEET_NODE_KEYS: NODE_KEY });
      await fleet(heartbeat(ownHeartbeat('keyed-move'), { headers: bearer(NODE_KEY) }));

      const moved = await fleet(
        heartbeat(strangerHeartbeat('keyed-move'), { sourceIp: STRANGER, headers: bearer(NODE_KEY) }),
      );
      const drained = await fleet(
        heartbeat({ node_id: 'keyed-move', draining: true }, { sourceIp: '10.0.0.99', headers: bearer(NODE_KEY) }),
      );

      expect(moved.statusCode).toBe(200);
      expect(drained.statusCode).toBe(200);
      expect(await services.registry.record('keyed-move')).toMatchObject({
        url: `http://${STRANGER}:11434`,
        draining: true,
      });
    });
  });

  describe('with client keys but no node keys', () => {
    it('refuses every heartbeat with 401 telling the operator to set FLEET_NODE_KEYS, and warns once', async () => {
      const warn = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      const { fleet, services } = await router({ FLEET_API_KEYS: CLIENT_KEY });

      const withClientKey = await fleet(heartbeat(ownHeartbeat('unkeyed'), { headers: bearer(CLIENT_KEY) }));
      const withoutKey = await fleet(heartbeat(ownHeartbeat('unkeyed'), {}));

      expect(withClientKey.statusCode).toBe(401);
      expect(JSON.parse(withClientKey.body)).toMatchObject({
        error: { message: expect.stringContaining('FLEET_NODE_KEYS'), code: 'invalid_api_key' },
      });
      expect(withoutKey.statusCode).toBe(401);
      expect(await services.registry.record('unkeyed')).toBeUndefined();
      const warnings = warn.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('FLEET_NODE_KEYS'));
      expect(warnings).toHaveLength(1);
    });
  });

  describe('open, with no keys', () => {
    it('refuses a heartbeat moving a live node to another address, and keeps its traffic', async () => {
      const { fleet, openai, services } = await router({});
      await fleet(heartbeat(ownHeartbeat('studio'), {}));

      const hijack = await fleet(heartbeat(strangerHeartbeat('studio'), { sourceIp: STRANGER }));
      const before = node.requests.length;
      const served = await openai(chat());

      expect(hijack.statusCode).toBe(409);
      const error = (JSON.parse(hijack.body) as { error: { message: string; code: string } }).error;
      expect(error).toMatchObject({ code: 'conflict', message: expect.stringContaining('"studio"') });
      expect(error.message).toContain('FLEET_NODE_KEYS');
      expect(error.message).not.toContain(node.url);
      expect((await services.registry.record('studio'))?.url).toBe(node.url);
      expect(served.statusCode).toBe(200);
      expect(served.headers['x-fleet-node']).toBe('studio');
      expect(node.requests.slice(before).map((request) => request.path)).toContain('/api/chat');
    });

    it('refuses a drain from a stranger and keeps the node in routing', async () => {
      const { fleet, services } = await router({});
      await fleet(heartbeat(ownHeartbeat('open-drain'), {}));

      const refused = await fleet(heartbeat({ node_id: 'open-drain', draining: true }, { sourceIp: STRANGER }));

      expect(refused.statusCode).toBe(409);
      expect(JSON.parse(refused.body)).toMatchObject({
        error: { code: 'conflict', message: expect.stringContaining('"open-drain"') },
      });
      expect((await services.registry.record('open-drain'))?.draining).toBe(false);
      expect((await services.registry.snapshot()).byId.get('open-drain')?.status).toBe('online');
    });

    it('takes a drain from the node itself, after which the node may move', async () => {
      const { fleet, services } = await router({});
      await fleet(heartbeat(ownHeartbeat('open-move'), {}));

      const drained = await fleet(heartbeat({ node_id: 'open-move', draining: true }, {}));
      const moved = await fleet(heartbeat(strangerHeartbeat('open-move'), { sourceIp: STRANGER }));

      expect(drained.statusCode).toBe(200);
      expect(moved.statusCode).toBe(200);
      expect((await services.registry.record('open-move'))?.url).toBe(`http://${STRANGER}:11434`);
    });
  });

  describe('listed nodes', () => {
    it.each([
      ['an open router', {}, {}],
      ['a node key', { FLEET_NODE_KEYS: NODE_KEY }, bearer(NODE_KEY)],
    ])('are never overwritten or drained by a heartbeat, even with %s', async (_name, env, headers) => {
      const { fleet, services } = await router({ FLEET_NODES: 'gpu1=http://10.0.0.5:11434', ...env });

      const claimed = await fleet(
        heartbeat(makeHeartbeat({ node_id: 'gpu1', models_available_meta: {} }), { sourceIp: '10.0.0.5', headers }),
      );
      const drained = await fleet(heartbeat({ node_id: 'gpu1', draining: true }, { sourceIp: '10.0.0.5', headers }));

      expect(claimed.statusCode).toBe(409);
      expect(JSON.parse(claimed.body)).toMatchObject({
        error: { code: 'conflict', message: expect.stringContaining('FLEET_NODES') },
      });
      expect(drained.statusCode).toBe(409);
      expect(await services.registry.record('gpu1')).toBeUndefined();
    });
  });
});
