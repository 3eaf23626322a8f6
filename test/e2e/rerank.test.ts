/**
 * `POST /v1/rerank` end to end (spec §4.2, §7, §8), as users call it: the built emulator, a node agent
 * whose simulated text-embedding sidecar has the rerankers (probabilities, sigmoid applied on the node,
 * like the real agent's), and a
 * second agent whose sidecar is scripted by the test to answer what a real node might — results out of
 * order, probabilities, bad indexes, refusals. Raw HTTP for the exact status codes, and the OpenAI SDK's
 * generic `post` as a client with no rerank method would call it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { CATALOG, rerankScore, type SimAgent, startSimAgent } from '../../emulator/sim';
import { sigmoid } from '../../lib/core/protocols/rerank/relevance-scores';
import { eventually, type RouterProcess, startRouter } from './router-process';

interface RerankBody {
  model: string;
  results: { index: number; relevance_score: number; document?: { text: string } }[];
  usage: { prompt_tokens: number; total_tokens: number };
}

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** What the scripted sidecar answers next, and what it was last asked. */
interface Script {
  status: number;
  body: unknown;
  asked: unknown;
}

let router: RouterProcess;
let ranker: SimAgent;
let scripted: SimAgent;
let scriptedSidecar: Server;
const script: Script = { status: 200, body: {}, asked: undefined };

const QUERY = 'capital of France';
const DOCUMENTS = [
  'Berlin is the capital of Germany',
  'Paris is the capital of France',
  'France exports wine',
  'Bananas are yellow',
];

function startScriptedSidecar(): Promise<Server> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      script.asked = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      const text = typeof script.body === 'string' ? script.body : JSON.stringify(script.body);
      response.writeHead(script.status, { 'content-type': 'application/json' });
      response.end(text);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** The scripted agent's heartbeat, with its text-embedding port pointing at the scripted sidecar. */
async function beatScripted(): Promise<void> {
  const port = (scriptedSidecar.address() as AddressInfo).port;
  const response = await fetch(`${router.url}/heartbeat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...scripted.payload(), text_embedding_port: port }),
  });
  expect(response.status).toBe(200);
}

async function rerank(body: unknown): Promise<Response> {
  return fetch(`${router.url}/v1/rerank`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

beforeAll(async () => {
  router = await startRouter();
  ranker = await startSimAgent({
    nodeId: 'ranker',
    routerUrl: router.url,
    intervalMs: 60_000,
    ollamaOptions: { id: 'ranker', models: CATALOG.filter((entry) => entry.name === 'llama3.2:3b') },
    textEmbedding: [
      { name: 'ms-marco-minilm-l-6-v2', dimensions: 0, kind: 'rerank' },
      { name: 'bge-reranker-base', dimensions: 0, kind: 'rerank' },
      { name: 'jina-reranker-v2-base-multilingual', dimensions: 0, kind: 'rerank' },
      { name: 'bge-small-en-v1.5', dimensions: 384, kind: 'embed' },
    ],
  });
  await ranker.sendHeartbeat();
  scriptedSidecar = await startScriptedSidecar();
  scripted = await startSimAgent({
    nodeId: 'scripted',
    ollamaOptions: { id: 'scripted', models: [] },
    textEmbedding: [{ name: 'scripted-reranker', dimensions: 0, kind: 'rerank' }],
  });
  await beatScripted();
  await eventually(async () => {
    expect((await rerank({ query: 'q', documents: ['q'] })).status).toBe(200);
    expect((await rerank({ model: 'scripted-reranker', query: 'q', documents: ['q'] })).status).not.toBe(404);
  });
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await ranker?.stop();
  await scripted?.stop();
  await new Promise((resolve) => scriptedSidecar?.close(resolve));
});

describe('POST /v1/rerank on a reranker sidecar', () => {
  it("ranks with the default model, best first, the agent's scores as it sent them, node in X-Fleet-Node", async () => {
    const response = await rerank({ query: QUERY, documents: DOCUMENTS });
    const body = (await response.json()) as RerankBody;

    expect(response.status).toBe(200);
    expect(response.headers.get('x-fleet-node')).toBe('ranker');
    expect(response.headers.get('x-fleet-model')).toBe('ms-marco-minilm-l-6-v2');
    expect(response.headers.get('x-fleet-score')).not.toBeNull();
    const expected = DOCUMENTS.map((document, index) => ({
      index,
      relevance_score: rerankScore(QUERY, document),
    })).sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
    // The agent counts words: the 3-word query with each document (6 + 6 + 3 + 3 words).
    const words = 4 * 3 + 6 + 6 + 3 + 3;
    expect(body).toEqual({
      model: 'ms-marco-minilm-l-6-v2',
      results: expected,
      usage: { prompt_tokens: words, total_tokens: words },
    });
    expect(body.results[0]?.index).toBe(1);
    expect(Object.keys(body)).not.toContain('node');
  });

  it('spreads the scores across 0..1: the relevant document near 1, the irrelevant one near 0', async () => {
    const response = await rerank({ query: QUERY, documents: DOCUMENTS });
    const scores = new Map(((await response.json()) as RerankBody).results.map((r) => [r.index, r.relevance_score]));

    // A client filtering on a relevance threshold of 0.5 keeps the answer and drops the bananas.
    expect(scores.get(1)).toBeGreaterThan(0.95);
    expect(scores.get(3)).toBeLessThan(0.05);
  });

  it('takes {text} documents, cuts to top_n and returns the documents when asked', async () => {
    const response = await rerank({
      model: 'bge-reranker-base',
      query: QUERY,
      documents: DOCUMENTS.map((text) => ({ text })),
      top_n: 2,
      return_documents: true,
    });
    const body = (await response.json()) as RerankBody;

    expect(response.status).toBe(200);
    expect(response.headers.get('x-fleet-model')).toBe('bge-reranker-base');
    expect(body.model).toBe('bge-reranker-base');
    expect(body.results).toHaveLength(2);
    expect(body.results[0]).toMatchObject({ index: 1, document: { text: 'Paris is the capital of France' } });
    for (const result of body.results) expect(result.document?.text).toBe(DOCUMENTS[result.index]);
  });

  it('returns every document when top_n is larger than the count, without documents by default', async () => {
    const response = await rerank({
      model: 'jina-reranker-v2-base-multilingual',
      query: QUERY,
      documents: DOCUMENTS,
      top_n: 50,
    });
    const body = (await response.json()) as RerankBody;

    expect(response.status).toBe(200);
    expect(body.results.map((result) => result.index).sort()).toEqual([0, 1, 2, 3]);
    for (const result of body.results) {
      expect(result.document).toBeUndefined();
      expect(result.relevance_score).toBeGreaterThan(0);
      expect(result.relevance_score).toBeLessThan(1);
    }
  });

  it('serves a fallback model when the asked one is on no node', async () => {
    const response = await rerank({
      model: 'no-such-reranker',
      fallback_models: ['bge-reranker-base'],
      query: QUERY,
      documents: DOCUMENTS,
    });

    expect(response.status).toBe(200);
    expect(response.headers.get('x-fleet-fallback')).toBe('bge-reranker-base');
    expect(((await response.json()) as RerankBody).model).toBe('bge-reranker-base');
  });

  it('answers through the OpenAI SDK as a custom POST', async () => {
    const openai = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'unused', maxRetries: 0 });

    const { data, response } = await openai
      .post<RerankBody>('/rerank', { body: { query: QUERY, documents: DOCUMENTS, top_n: 1 } })
      .withResponse();

    expect(data.results).toEqual([{ index: 1, relevance_score: expect.any(Number) }]);
    expect(response.headers.get('x-fleet-node')).toBe('ranker');
  });

  it('accepts a document of exactly 32,000 characters, emoji counted as one', async () => {
    const response = await rerank({ query: 'llama', documents: ['🦙'.repeat(32_000), 'a llama'] });

    expect(response.status).toBe(200);
  });
});

describe('POST /v1/rerank errors', () => {
  it.each([
    ['1,001 documents', { query: 'q', documents: Array.from({ length: 1001 }, () => 'doc') }, 'documents'],
    ['a document over 32,000 characters', { query: 'q', documents: ['ok', 'x'.repeat(32_001)] }, 'documents.1'],
    ['an empty document', { query: 'q', documents: ['ok', ''] }, 'documents.1'],
    ['no query', { documents: ['ok'] }, 'query'],
    ['top_n 0', { query: 'q', documents: ['ok'], top_n: 0 }, 'top_n'],
  ])('answers %s with 400 naming the field', async (_case, body, param) => {
    const response = await rerank(body);
    const error = (await response.json()) as ErrorBody;

    expect(response.status).toBe(400);
    expect(error.error).toMatchObject({ type: 'invalid_request_error', param });
  });

  it('answers 404 in the OpenAI envelope when no node has the reranker', async () => {
    const response = await rerank({ model: 'no-such-reranker', query: 'q', documents: ['d'] });
    const error = (await response.json()) as ErrorBody;

    expect(response.status).toBe(404);
    expect(error.error.message).toContain('no-such-reranker');
  });

  it('answers 400 when the model named is an embedder, not a reranker', async () => {
    const response = await rerank({ model: 'bge-small-en-v1.5', query: 'q', documents: ['d'] });
    const error = (await response.json()) as ErrorBody;

    expect(response.status).toBe(400);
    expect(error.error.param).toBe('model');
  });

  it('answers 503 when the only node with the reranker keeps failing', async () => {
    ranker.textEmbedding?.faults.failNext(10, 500);
    try {
      const response = await rerank({ model: 'jina-reranker-v2-base-multilingual', query: 'q', documents: ['d'] });

      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).not.toBeNull();
    } finally {
      await ranker.textEmbedding?.faults.reset();
    }
  });
});

describe('POST /v1/rerank against what a node might answer', () => {
  const ask = (body: Record<string, unknown> = {}) =>
    rerank({ model: 'scripted-reranker', query: 'q', documents: ['zero', 'one', 'two'], ...body });

  beforeEach(async () => {
    await beatScripted();
  });

  it('asks the sidecar for every score with the documents as strings, without top_n', async () => {
    script.status = 200;
    script.body = { results: [0, 1, 2].map((index) => ({ index, relevance_score: 0 })) };

    await ask({ documents: [{ text: 'zero' }, 'one', { text: 'two' }], top_n: 1, user: 'ada' });

    expect(script.asked).toEqual({ model: 'scripted-reranker', query: 'q', documents: ['zero', 'one', 'two'] });
  });

  it('re-orders results the node gave in input order', async () => {
    script.status = 200;
    script.body = {
      results: [
        { index: 0, relevance_score: -2 },
        { index: 1, relevance_score: 3 },
        { index: 2, relevance_score: 1 },
      ],
    };

    const body = (await (await ask()).json()) as RerankBody;

    expect(body.results).toEqual([
      { index: 1, relevance_score: sigmoid(3) },
      { index: 2, relevance_score: sigmoid(1) },
      { index: 0, relevance_score: sigmoid(-2) },
    ]);
  });

  it("keeps a real agent's probabilities as they are: 0.99 stays 0.99, 0.01 stays 0.01", async () => {
    script.status = 200;
    script.body = {
      model: 'scripted-reranker',
      results: [
        { index: 1, relevance_score: 0.99 },
        { index: 2, relevance_score: 0.5 },
        { index: 0, relevance_score: 0.01 },
      ],
      usage: { total_tokens: 6 },
    };

    const body = (await (await ask()).json()) as RerankBody;

    expect(body.results).toEqual([
      { index: 1, relevance_score: 0.99 },
      { index: 2, relevance_score: 0.5 },
      { index: 0, relevance_score: 0.01 },
    ]);
  });

  it("keeps probabilities the node marks raw_scores false, and the node's usage", async () => {
    script.status = 200;
    script.body = {
      results: [
        { index: 2, relevance_score: 0.7 },
        { index: 0, relevance_score: 0.9 },
        { index: 1, relevance_score: 0.1 },
      ],
      raw_scores: false,
      usage: { prompt_tokens: 17, total_tokens: 17 },
    };

    const body = (await (await ask()).json()) as RerankBody;

    expect(body.results).toEqual([
      { index: 0, relevance_score: 0.9 },
      { index: 2, relevance_score: 0.7 },
      { index: 1, relevance_score: 0.1 },
    ]);
    expect(body.usage).toEqual({ prompt_tokens: 17, total_tokens: 17 });
  });

  it.each([
    ['an index out of range', [0, 1, 3]],
    ['an index twice', [0, 1, 1]],
    ['a document left out', [0, 1]],
  ])('answers 502 when the node returns %s', async (_case, indexes) => {
    script.status = 200;
    script.body = { results: indexes.map((index) => ({ index, relevance_score: 1 })) };

    const response = await ask();
    const error = (await response.json()) as ErrorBody;

    expect(response.status).toBe(502);
    expect(error.error.type).toBe('server_error');
  });

  it('answers 502 when the node answers something that is not JSON', async () => {
    script.status = 200;
    script.body = 'scores: 1, 2, 3';

    expect((await ask()).status).toBe(502);
  });

  it("passes the node's refusal on with its status and detail", async () => {
    script.status = 400;
    script.body = { detail: 'document 2 is not English' };

    const response = await ask();
    const error = (await response.json()) as ErrorBody;

    expect(response.status).toBe(400);
    expect(error.error.message).toBe('document 2 is not English');
  });
});
