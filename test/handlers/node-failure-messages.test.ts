/**
 * What a client is told when its node fails (issue 19 item 7): the error names the node by its id and
 * says in words what failed — never the node's URL, port or undici's error code — in the family's shape,
 * for chat in each family, embeddings and rerank; the 503 after such a transient failure says when to
 * come back and nothing contrary; a 502 after the node was chosen carries its X-Fleet-* headers.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { catalogEntry, type SimAgent, startSimAgent } from '../../emulator/sim';
import { routes as fleetRoutes } from '../../functions/fleet';
import { routes as messagesRoutes } from '../../functions/messages';
import { routes as ollamaRoutes } from '../../functions/ollama';
import { routes as openaiRoutes } from '../../functions/openai';
import { initServices, type Services } from '../../lib/instance';
import { createBufferedHandler, type RouteTable } from '../../lib/services/http/handler';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

let store: StoreFixture;
let services: Services;
let agent: SimAgent;

beforeAll(async () => {
  store = await startStore('node-failure-messages');
  // Ejection off: every case meets the node's own failure, not the ejection an earlier case caused.
  services = initServices(
    loadConfig({
      FLEET_DYNAMODB_ENDPOINT: store.endpoint,
      FLEET_TABLE: store.tableName,
      FLEET_EJECT_AFTER_FAILURES: '0',
    }),
  );
  agent = await startSimAgent({
    nodeId: 'gpu1',
    ollamaOptions: { id: 'gpu1', models: [catalogEntry('llama3.2:3b'), catalogEntry('nomic-embed-text:latest')] },
    textEmbedding: [{ name: 'ms-marco-minilm-l-6-v2', dimensions: 0, kind: 'rerank' }],
  });
  const heartbeat = makeHttpEvent({ method: 'POST', path: '/heartbeat', body: agent.payload(), sourceIp: '127.0.0.1' });
  expect((await createBufferedHandler(fleetRoutes(services))(heartbeat)).statusCode).toBe(200);
  await services.registry.refresh();
});

afterAll(async () => {
  await closeServices(services);
  await agent.stop();
  await store.close();
});

const chat = [{ role: 'user', content: 'hello' }];

/** Route table, path, body, and how the family's error body gives its message. */
const CALLS: readonly (readonly [
  string,
  (services: Services) => RouteTable,
  string,
  object,
  'ollama' | 'openai' | 'anthropic',
])[] = [
  ['ollama chat', ollamaRoutes, '/api/chat', { model: 'llama3.2:3b', messages: chat, stream: false }, 'ollama'],
  ['openai chat', openaiRoutes, '/v1/chat/completions', { model: 'llama3.2:3b', messages: chat }, 'openai'],
  [
    'anthropic messages',
    messagesRoutes,
    '/v1/messages',
    { model: 'llama3.2:3b', max_tokens: 9, messages: chat },
    'anthropic',
  ],
  ['ollama embed', ollamaRoutes, '/api/embed', { model: 'nomic-embed-text', input: 'x' }, 'ollama'],
  ['openai embeddings', openaiRoutes, '/v1/embeddings', { model: 'nomic-embed-text', input: 'x' }, 'openai'],
  ['rerank', openaiRoutes, '/v1/rerank', { model: 'ms-marco-minilm-l-6-v2', query: 'q', documents: ['d'] }, 'openai'],
];

function messageOf(family: 'ollama' | 'openai' | 'anthropic', body: unknown): string {
  const record = body as { type?: string; error: string | { message: string } };
  if (family === 'ollama') return record.error as string;
  expect(record.type).toBe(family === 'anthropic' ? 'error' : undefined);
  return (record.error as { message: string }).message;
}

async function call(routes: (services: Services) => RouteTable, path: string, body: object) {
  const result = await createBufferedHandler(routes(services))(makeHttpEvent({ method: 'POST', path, body }));
  return { status: result.statusCode, headers: result.headers, body: JSON.parse(result.body) as unknown };
}

/** No URL, address, port or undici/socket code: what the issue found in error bodies. */
const TECHNICAL = /https?:\/\/|127\.0\.0\.1|:\d{2,5}\b|\bE[A-Z]{4,}\b|UND_ERR/;

const sidecarOf = (path: string) => (path === '/v1/rerank' ? agent.textEmbedding?.faults : agent.node.faults);

describe.each(CALLS)('%s when its only node fails', (_name, routes, path, body, family) => {
  it('names the node and says it refused the connection, with no URL or code', async () => {
    await sidecarOf(path)?.refuseConnections(true);
    try {
      const reply = await call(routes, path, body);

      expect(reply.status).toBe(503);
      const message = messageOf(family, reply.body);
      expect(message).toContain('gpu1');
      expect(message).toContain('refused the connection');
      expect(message).not.toMatch(TECHNICAL);
    } finally {
      await sidecarOf(path)?.refuseConnections(false);
    }
  });

  it('names the node and says it failed with HTTP 500, not what it printed; Retry-After and no x-should-retry: false', async () => {
    sidecarOf(path)?.failNext(10, 500);
    try {
      const reply = await call(routes, path, body);

      expect(reply.status).toBe(503);
      const message = messageOf(family, reply.body);
      expect(message).toContain('gpu1: failed (HTTP 500)');
      expect(message).not.toContain('simulated failure');
      expect(message).not.toMatch(TECHNICAL);
      expect(reply.headers['retry-after']).toBe('1');
      expect(reply.headers['x-should-retry']).toBeUndefined();
    } finally {
      await sidecarOf(path)?.reset();
    }
  });
});
