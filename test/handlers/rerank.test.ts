/**
 * `POST /v1/rerank` through `functions/openai` in process, on both hosts (spec §4.2, §7, §8): validation
 * in OpenAI's error envelope naming the field and the limits of §8, before the fleet is asked; then a
 * routed rerank on a simulated node agent, its `X-Fleet-*` headers and its trace (style `rerank`, the
 * tokens, the tags). The services run on an in-process table; the heartbeat goes through
 * `functions/fleet` as an agent sends it. Raw HTTP through the built emulator: test/e2e/rerank.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type SimAgent, startSimAgent } from '../../emulator/sim';
import { routes as fleetRoutes } from '../../functions/fleet';
import { routes } from '../../functions/openai';
import type { Trace } from '../../lib/core/analytics/trace-record';
import { initServices, type Services } from '../../lib/instance';
import type { TracePage } from '../../lib/services/analytics/trace';
import { createBufferedHandler } from '../../lib/services/http/handler';
import { loadConfig } from '../../lib/services/platform/config';
import { dayOf } from '../../lib/services/store/keys';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { HOSTS } from '../helpers/hosts';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

let store: StoreFixture;
let services: Services;
let agent: SimAgent;

beforeAll(async () => {
  store = await startStore('rerank');
  services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
  agent = await startSimAgent({
    nodeId: 'ranker',
    ollamaOptions: { id: 'ranker', models: [] },
    textEmbedding: [
      { name: 'ms-marco-minilm-l-6-v2', dimensions: 0, kind: 'rerank' },
      { name: 'bge-reranker-base', dimensions: 0, kind: 'rerank' },
    ],
  });
  const heartbeat = makeHttpEvent({
    method: 'POST',
    path: '/heartbeat',
    body: agent.payload(),
    sourceIp: '127.0.0.1',
  });
  expect((await createBufferedHandler(fleetRoutes(services))(heartbeat)).statusCode).toBe(200);
  await services.registry.refresh();
});

afterAll(async () => {
  await closeServices(services);
  await agent.stop();
  await store.close();
});

async function tracesTagged(tag: string): Promise<Trace[]> {
  await services.writeBehind.flush();
  const pages = await store.table.queryDocs(`TRACE#${dayOf(Date.now())}`);
  const traces = pages.flatMap((page) => (JSON.parse(page.doc ?? '{}') as TracePage).traces);
  return traces.filter((trace) => trace.tags.includes(tag));
}

interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const LONGEST = 'a'.repeat(32_000);

const CASES: readonly (readonly [string, unknown, string | null, string])[] = [
  ['a body that is not JSON', '{"query": ', null, 'request body is not valid JSON'],
  ['a body that is not an object', ['query'], null, 'expected object'],
  ['no query', { documents: ['a'] }, 'query', 'query: query is required and must be a string'],
  ['a query that is not a string', { query: 7, documents: ['a'] }, 'query', 'query: query is required'],
  ['an empty query', { query: '  ', documents: ['a'] }, 'query', 'query: query must not be empty'],
  ['no documents', { query: 'q' }, 'documents', 'documents: documents is required'],
  ['documents that are not an array', { query: 'q', documents: 'a' }, 'documents', 'documents is required'],
  ['an empty documents array', { query: 'q', documents: [] }, 'documents', 'at least one document is required'],
  ['a document that is a number', { query: 'q', documents: ['a', 3] }, 'documents.1', 'expected a string or'],
  ['an image document', { query: 'q', documents: [{ image: 'x.png' }] }, 'documents.0', 'expected a string or'],
  ['an empty document', { query: 'q', documents: ['a', ''] }, 'documents.1', 'must not be empty'],
  ['an empty {text} document', { query: 'q', documents: [{ text: '' }] }, 'documents.0.text', 'must not be empty'],
  [
    '1,001 documents',
    { query: 'q', documents: Array.from({ length: 1001 }, () => 'doc') },
    'documents',
    'documents: at most 1,000 documents per request, got 1,001',
  ],
  [
    'a document over 32,000 characters',
    { query: 'q', documents: ['a', 'b', `${LONGEST}!`] },
    'documents.2',
    'documents.2: a document may have at most 32,000 characters, this one has 32,001',
  ],
  ['top_n 0', { query: 'q', documents: ['a'], top_n: 0 }, 'top_n', 'top_n must be a positive integer'],
  ['a negative top_n', { query: 'q', documents: ['a'], top_n: -2 }, 'top_n', 'top_n must be a positive integer'],
  ['a fractional top_n', { query: 'q', documents: ['a'], top_n: 1.5 }, 'top_n', 'top_n must be a positive integer'],
  ['top_n as a string', { query: 'q', documents: ['a'], top_n: '3' }, 'top_n', 'top_n must be a positive integer'],
  [
    'return_documents as a string',
    { query: 'q', documents: ['a'], return_documents: 'yes' },
    'return_documents',
    'return_documents must be a boolean',
  ],
  ['an empty model', { model: '', query: 'q', documents: ['a'] }, 'model', 'model must not be empty'],
  ['a model that is not a string', { model: 3, query: 'q', documents: ['a'] }, 'model', 'model must be a string'],
];

describe('functions/openai POST /v1/rerank', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it.each(CASES)('answers %s with 400 in the OpenAI envelope', async (_case, body, param, message) => {
      const event = makeHttpEvent({ method: 'POST', path: '/v1/rerank', body: body as object | string });

      const reply = await host(routes(services), event);
      const parsed = JSON.parse(reply.body) as OpenAIErrorBody;

      expect(parsed.error.type).toBe('invalid_request_error');
      expect(parsed.error.param).toBe(param);
      expect(parsed.error.message).toContain(message);
      expect(reply.statusCode).toBe(400);
    });

    it('answers a request without a body with 400', async () => {
      const event = makeHttpEvent({ method: 'POST', path: '/v1/rerank' });

      const reply = await host(routes(services), event);

      expect(JSON.parse(reply.body)).toMatchObject({ error: { message: 'missing request body' } });
      expect(reply.statusCode).toBe(400);
    });
  });
});

describe('functions/openai POST /v1/rerank, routed', () => {
  const QUERY = 'capital of France';
  const DOCUMENTS = ['Berlin is in Germany', 'Paris is the capital of France'];

  describe.each(HOSTS)('%s host', (name, host) => {
    it('ranks on the node agent and traces the request as rerank with its tokens and tags', async () => {
      const tag = `unit:rerank-${name}`;
      const event = makeHttpEvent({
        method: 'POST',
        path: '/v1/rerank',
        headers: { 'X-Service-Tags': `${tag}, search` },
        body: { query: QUERY, documents: DOCUMENTS, user: 'ada', metadata: { tags: ['docs'] } },
      });

      const reply = await host(routes(services), event);
      const body = JSON.parse(reply.body) as { model: string; results: { index: number }[] };

      expect(reply.statusCode).toBe(200);
      expect(reply.headers['x-fleet-node']).toBe('ranker');
      expect(body.model).toBe('ms-marco-minilm-l-6-v2');
      expect(body.results.map((result) => result.index)).toEqual([1, 0]);
      const traces = await tracesTagged(tag);
      expect(traces).toHaveLength(1);
      expect(traces[0]).toMatchObject({
        style: 'rerank',
        status: 'completed',
        requestedModel: 'ms-marco-minilm-l-6-v2',
        servedModel: 'ms-marco-minilm-l-6-v2',
        nodeId: 'ranker',
        // The agent's own count (words of each query-document pair: 3 + 4, 3 + 6), as the node sent it.
        promptTokens: 16,
        completionTokens: 0,
      });
      expect(traces[0]?.tags).toEqual(['docs', tag, 'search', 'user:ada']);
    });
  });

  it('answers with the X-Fleet headers and traces a fallback', async () => {
    const event = makeHttpEvent({
      method: 'POST',
      path: '/v1/rerank',
      headers: { 'X-Service-Tags': 'unit:rerank-fallback' },
      body: { model: 'absent-reranker', fallback_models: ['bge-reranker-base'], query: QUERY, documents: DOCUMENTS },
    });

    const reply = await createBufferedHandler(routes(services))(event);

    expect(reply.statusCode).toBe(200);
    expect(reply.headers).toMatchObject({
      'x-fleet-node': 'ranker',
      'x-fleet-model': 'bge-reranker-base',
      'x-fleet-fallback': 'bge-reranker-base',
    });
    expect(await tracesTagged('unit:rerank-fallback')).toEqual([
      expect.objectContaining({
        style: 'rerank',
        requestedModel: 'absent-reranker',
        fallbackModel: 'bge-reranker-base',
      }),
    ]);
  });

  it('traces a request no node can serve as failed', async () => {
    const event = makeHttpEvent({
      method: 'POST',
      path: '/v1/rerank',
      headers: { 'X-Service-Tags': 'unit:rerank-missing' },
      body: { model: 'absent-reranker', query: QUERY, documents: DOCUMENTS },
    });

    const reply = await createBufferedHandler(routes(services))(event);

    expect(reply.statusCode).toBe(404);
    expect(await tracesTagged('unit:rerank-missing')).toEqual([
      expect.objectContaining({ style: 'rerank', status: 'failed', requestedModel: 'absent-reranker' }),
    ]);
  });
});
