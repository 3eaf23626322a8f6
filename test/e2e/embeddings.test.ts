/**
 * Embeddings end to end (spec §4.2 `POST /v1/embeddings`, §4.4 `POST /api/embed` and `/api/embeddings`,
 * §7, §8), as users meet them: the built emulator in its own process on a DynamoDB of the test's own (so
 * the traces can be read back), listed Ollama nodes, and a node agent whose text-embedding sidecar serves
 * `bge-small-en-v1.5`. Checked through the official `openai` client (float, base64 and its default, which
 * is base64 on the wire decoded by the SDK), `ollama` client (embed and the legacy embeddings) and
 * LangChain's `OllamaEmbeddings` (which sends `truncate: false` on every call), and raw HTTP for the exact
 * status codes. One listed node sits behind a proxy that drops a vector from every
 * `/api/embed` reply, as a node that skips an input would.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OllamaEmbeddings } from '@langchain/ollama';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { type DynamoStandIn, startDynamo } from '../../emulator/dynamo';
import {
  catalogEntry,
  DEFAULT_TEXT_EMBEDDING_MODELS,
  type SimAgent,
  type SimNode,
  startSimAgent,
  startSimNode,
} from '../../emulator/sim';
import type { Trace } from '../../lib/core/analytics/trace-record';
import { countTokens } from '../../lib/core/tokens/count-tokens';
import type { TracePage } from '../../lib/services/analytics/trace';
import { createDynamoClient } from '../../lib/services/store/client';
import { dayOf } from '../../lib/services/store/keys';
import { openTable, type Table } from '../../lib/services/store/table';
import { eventually, type RouterProcess, startRouter } from './router-process';

const NOMIC = 'nomic-embed-text:latest';
const SIDECAR_MODEL = 'bge-small-en-v1.5';
const LOSSY_MODEL = 'snowflake-arctic-embed:latest';
const FLAKY_MODEL = 'granite-embedding:latest';
const TABLE = 'fleet-embeddings-e2e';

let dynamo: DynamoStandIn;
let table: Table;
let plain: SimNode;
let flaky: SimNode;
let lossyBackend: SimNode;
let lossy: Server;
let agent: SimAgent;
let router: RouterProcess;
let ollama: Ollama;
let openai: OpenAI;
/** What the `openai` client put on the wire, request and reply bodies. */
const wire: { request: string; reply: string }[] = [];

/** `hello` then ` hello`: one token each, so `words(n)` is n tokens. */
const words = (count: number) => `hello${' hello'.repeat(count - 1)}`;

/** A listed "node" that forwards to `target` and drops the last vector of every `/api/embed` reply. */
async function startLossyProxy(target: string): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const forward = async () => {
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const upstream = await fetch(`${target}${request.url ?? '/'}`, {
          method: request.method ?? 'GET',
          headers: { 'content-type': 'application/json' },
          ...(body !== undefined ? { body } : {}),
        });
        let text = await upstream.text();
        if (request.url === '/api/embed' && upstream.ok) {
          const reply = JSON.parse(text) as { embeddings: number[][] };
          reply.embeddings.pop();
          text = JSON.stringify(reply);
        }
        response.writeHead(upstream.status, { 'content-type': 'application/json' });
        response.end(text);
      };
      forward().catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${router.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** How many embedding requests a simulated node got (it is also polled for its state meanwhile). */
function embedCalls(node: SimNode): number {
  return node.requests.filter((record) => record.path === '/api/embed' || record.path === '/api/embeddings').length;
}

/** What a simulated Ollama answers itself for these inputs (the ground truth the router must relay). */
async function direct(node: SimNode, input: string[], extra: object = {}) {
  const response = await fetch(`${node.url}/api/embed`, {
    method: 'POST',
    body: JSON.stringify({ model: NOMIC, input, ...extra }),
  });
  return (await response.json()) as { embeddings: number[][]; prompt_eval_count: number };
}

/** The last request a simulated node got on `path`. */
function lastRequest(node: SimNode, path: string): Record<string, unknown> {
  const found = node.requests.filter((record) => record.path === path).at(-1);
  return (found?.body ?? {}) as Record<string, unknown>;
}

/** The traces the router wrote today with `tag` (one tag per test), once they reach the table. */
async function tracesTagged(tag: string, count = 1): Promise<Trace[]> {
  return eventually(async () => {
    const pages = await table.queryDocs(`TRACE#${dayOf(Date.now())}`);
    const traces = pages.flatMap((page) => (JSON.parse(page.doc ?? '{}') as TracePage).traces ?? []);
    const tagged = traces.filter((trace) => trace.tags.includes(tag));
    expect(tagged).toHaveLength(count);
    return tagged;
  });
}

beforeAll(async () => {
  dynamo = await startDynamo({ dataDir: ':memory:', port: 0 });
  table = openTable(createDynamoClient({ dynamodbEndpoint: dynamo.endpoint }), TABLE);
  plain = await startSimNode({
    id: 'plain',
    models: ['llama3.2:3b', NOMIC, 'mxbai-embed-large:latest'].map(catalogEntry),
    loaded: [NOMIC],
  });
  flaky = await startSimNode({ id: 'flaky', models: [catalogEntry(FLAKY_MODEL)] });
  lossyBackend = await startSimNode({ id: 'lossy', models: [catalogEntry(LOSSY_MODEL)] });
  const proxy = await startLossyProxy(lossyBackend.url);
  lossy = proxy.server;
  router = await startRouter({
    FLEET_NODES: `plain=${plain.url},flaky=${flaky.url},lossy=${proxy.url}`,
    FLEET_DYNAMODB_ENDPOINT: dynamo.endpoint,
    FLEET_TABLE: TABLE,
  });
  agent = await startSimAgent({
    nodeId: 'studio',
    routerUrl: router.url,
    intervalMs: 60_000,
    ollamaOptions: { id: 'studio', models: [catalogEntry('llama3.2:1b')] },
    textEmbedding: DEFAULT_TEXT_EMBEDDING_MODELS,
  });
  await agent.sendHeartbeat();
  ollama = new Ollama({ host: router.url });
  openai = new OpenAI({
    baseURL: `${router.url}/v1`,
    apiKey: 'unused',
    maxRetries: 0,
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      wire.push({ request: String(init?.body ?? ''), reply: await response.clone().text() });
      return response;
    },
  });
  // Every model known to the router with its kind (a polled model's kind comes from /api/show).
  await eventually(async () => {
    for (const model of [NOMIC, SIDECAR_MODEL, LOSSY_MODEL, FLAKY_MODEL]) {
      expect((await post('/api/embed', { model, input: 'warm up' })).status).not.toBe(404);
    }
    expect((await post('/api/embed', { model: NOMIC, input: 'warm up' })).status).toBe(200);
  }, 15_000);
}, 40_000);

afterAll(async () => {
  await agent?.stop();
  await router?.stop();
  await new Promise((resolve) => lossy?.close(resolve));
  await Promise.all([plain?.close(), flaky?.close(), lossyBackend?.close()]);
  await dynamo?.close();
});

describe('POST /v1/embeddings through the openai client', () => {
  const input = ['the router forwards requests', 'to Ollama nodes'];

  it('returns the node’s vectors exactly when the caller asks for floats', async () => {
    const expected = await direct(plain, input);

    const { data, response } = await openai.embeddings
      .create({ model: 'nomic-embed-text', input, encoding_format: 'float' })
      .withResponse();

    expect(data.object).toBe('list');
    expect(data.model).toBe(NOMIC);
    expect(data.data.map((item) => item.index)).toEqual([0, 1]);
    expect(data.data.map((item) => item.embedding)).toEqual(expected.embeddings);
    expect(data.usage).toEqual({ prompt_tokens: expected.prompt_eval_count, total_tokens: expected.prompt_eval_count });
    expect(response.headers.get('x-fleet-node')).toBe('plain');
    expect(response.headers.get('x-fleet-model')).toBe(NOMIC);
    expect(Number(response.headers.get('x-fleet-score'))).toBeGreaterThan(0);
    expect(response.headers.get('x-fleet-truncated-inputs')).toBeNull();
  });

  it('gets base64 on the wire by default and decodes it to the node’s vectors as float32', async () => {
    const expected = await direct(plain, input);
    wire.length = 0;

    const reply = await openai.embeddings.create({ model: NOMIC, input });

    expect(JSON.parse(wire[0]?.request ?? '{}')).toMatchObject({ encoding_format: 'base64' });
    const onWire = JSON.parse(wire[0]?.reply ?? '{}') as { data: { embedding: unknown }[] };
    expect(typeof onWire.data[0]?.embedding).toBe('string');
    expect(reply.data.map((item) => item.embedding)).toEqual(
      expected.embeddings.map((vector) => vector.map((value) => Math.fround(value))),
    );
  });

  it('returns little-endian float32 base64 when the caller asks for it', async () => {
    const expected = await direct(plain, ['one text']);

    const reply = await openai.embeddings.create({ model: NOMIC, input: 'one text', encoding_format: 'base64' });

    const encoded = reply.data[0]?.embedding as unknown;
    expect(typeof encoded).toBe('string');
    const bytes = Buffer.from(String(encoded), 'base64');
    const decoded = Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
    expect(decoded).toEqual(expected.embeddings[0]?.map((value) => Math.fround(value)));
  });

  it('serves a model of a node agent’s text-embedding sidecar, counting the tokens itself', async () => {
    const { data, response } = await openai.embeddings
      .create({ model: SIDECAR_MODEL, input: ['hello world', 'tiktoken is great!'], encoding_format: 'float' })
      .withResponse();

    expect(response.headers.get('x-fleet-node')).toBe('studio');
    expect(data.data).toHaveLength(2);
    expect(data.data.every((item) => item.embedding.length === 384)).toBe(true);
    expect(data.data[0]?.embedding).not.toEqual(data.data[1]?.embedding);
    expect(data.usage.prompt_tokens).toBe(countTokens('hello world') + countTokens('tiktoken is great!'));
  });

  it('passes dimensions on to an Ollama node and returns vectors that wide', async () => {
    const reply = await openai.embeddings.create({ model: NOMIC, input: 'short', dimensions: 256 });

    expect(reply.data[0]?.embedding).toHaveLength(256);
    expect(lastRequest(plain, '/api/embed')).toMatchObject({ model: NOMIC, input: ['short'], dimensions: 256 });
  });

  it('forwards nothing of the router’s own to the node', async () => {
    await openai.embeddings.create({
      model: NOMIC,
      input: 'tagged',
      user: 'ada',
      // @ts-expect-error: the router's own fields, which the SDK does not type
      fallback_models: ['mxbai-embed-large'],
      metadata: { tags: ['rag'] },
    });

    expect(lastRequest(plain, '/api/embed')).toEqual({ model: NOMIC, input: ['tagged'] });
  });

  it('falls back to a model of fallback_models and says so', async () => {
    const reply = await post('/v1/embeddings', {
      model: 'no-such-embedder',
      input: 'x',
      fallback_models: ['mxbai-embed-large'],
    });

    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-fleet-fallback')).toBe('mxbai-embed-large');
    expect(reply.body['model']).toBe('mxbai-embed-large:latest');
  });
});

describe('POST /api/embed and /api/embeddings through the ollama client', () => {
  it('embeds several texts in Ollama’s shape', async () => {
    const expected = await direct(plain, ['a first text', 'a second text']);

    const reply = await ollama.embed({ model: 'nomic-embed-text', input: ['a first text', 'a second text'] });

    expect(reply.model).toBe(NOMIC);
    expect(reply.embeddings).toEqual(expected.embeddings);
    expect(reply.prompt_eval_count).toBe(expected.prompt_eval_count);
    expect(reply.total_duration).toBeGreaterThan(0);
    expect(typeof reply.load_duration).toBe('number');
  });

  it('forwards Ollama’s own fields to the node', async () => {
    await ollama.embed({ model: NOMIC, input: 'kept', keep_alive: '10m', truncate: true, options: { num_ctx: 512 } });

    expect(lastRequest(plain, '/api/embed')).toEqual({
      model: NOMIC,
      input: ['kept'],
      keep_alive: '10m',
      truncate: true,
      options: { num_ctx: 512 },
    });
  });

  it('answers the legacy route with the /api/embed vector of the prompt', async () => {
    const expected = await direct(plain, ['legacy prompt']);

    const reply = await ollama.embeddings({ model: NOMIC, prompt: 'legacy prompt' });

    expect(reply.embedding).toEqual(expected.embeddings[0]);
    expect(lastRequest(plain, '/api/embed')).toEqual({ model: NOMIC, input: ['legacy prompt'] });
  });

  it('answers an empty legacy prompt with 400, as every other empty input', async () => {
    const reply = await fetch(`${router.url}/api/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: NOMIC, prompt: '' }),
    });

    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({ error: expect.stringContaining('prompt is an empty string') });
  });

  it('embeds through the sidecar in Ollama’s shape', async () => {
    const reply = await ollama.embed({ model: SIDECAR_MODEL, input: 'from the sidecar' });

    expect(reply.embeddings).toHaveLength(1);
    expect(reply.embeddings[0]).toHaveLength(384);
    expect(reply.prompt_eval_count).toBe(countTokens('from the sidecar'));
    expect(reply.load_duration).toBe(0);
  });
});

describe("LangChain's OllamaEmbeddings, which sends truncate: false on every call", () => {
  /** The bodies LangChain put on the wire. */
  const sent: Record<string, unknown>[] = [];
  const langchain = () =>
    new OllamaEmbeddings({
      model: 'nomic-embed-text',
      baseUrl: router.url,
      maxRetries: 0,
      fetch: async (url, init) => {
        sent.push(JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>);
        return fetch(url, init);
      },
    });

  it('embeds documents and a query, the node getting the texts untouched', async () => {
    const expected = await direct(plain, ['a', 'b']);
    const expectedQuery = await direct(plain, ['what routes requests?']);

    const documents = await langchain().embedDocuments(['a', 'b']);
    const query = await langchain().embedQuery('what routes requests?');

    expect(sent.at(-2)).toMatchObject({ input: ['a', 'b'], truncate: false });
    expect(documents).toEqual(expected.embeddings);
    expect(query).toEqual(expectedQuery.embeddings[0]);
    expect(lastRequest(plain, '/api/embed')).toMatchObject({ input: ['what routes requests?'], truncate: false });
  });

  it("refuses a document over 2,048 tokens as Ollama does, naming it, in Ollama's shape", async () => {
    const failure = await langchain()
      .embedDocuments(['short', words(2049)])
      .catch((error: unknown) => error);
    const raw = await post('/api/embed', { model: 'nomic-embed-text', input: ['short', words(2049)], truncate: false });

    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain('the input length exceeds the context length: input.1 is over 2048');
    expect(raw.status).toBe(400);
    expect(Object.keys(raw.body)).toEqual(['error']);
  });
});

describe('truncation to 2,048 tokens', () => {
  it.each([
    ['/v1/embeddings', 'input'],
    ['/api/embed', 'input'],
    ['/api/embeddings', 'prompt'],
  ])('%s cuts a longer input before the node sees it and says how many it cut', async (path, field) => {
    const reply = await post(path, { model: NOMIC, [field]: words(5000) });

    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-fleet-truncated-inputs')).toBe('1');
    expect(lastRequest(plain, '/api/embed')).toEqual({ model: NOMIC, input: [words(2048)] });
  });

  it('counts only the inputs it cut', async () => {
    const reply = await post('/api/embed', { model: NOMIC, input: ['short', words(2049), words(2048)] });

    expect(reply.headers.get('x-fleet-truncated-inputs')).toBe('1');
    expect(lastRequest(plain, '/api/embed')['input']).toEqual(['short', words(2048), words(2048)]);
  });
});

describe('status codes over raw HTTP', () => {
  it.each([
    ['/v1/embeddings', { model: NOMIC, input: ['a', ''] }],
    ['/v1/embeddings', { model: NOMIC, input: '' }],
    ['/api/embed', { model: NOMIC, input: ['a', ''] }],
  ])('%s answers an empty string with 400 and never asks a node', async (path, body) => {
    const before = embedCalls(plain);

    const reply = await post(path, body);

    expect(reply.status).toBe(400);
    expect(embedCalls(plain)).toBe(before);
  });

  it.each([
    ['/api/embed', { input: ['short', words(2049)] }, 'input.1'],
    ['/api/embeddings', { prompt: words(2049) }, 'prompt'],
    ['/v1/embeddings', { input: words(2049) }, 'input'],
  ])('%s answers an input over 2,048 tokens with truncate: false by 400 naming it', async (path, body, field) => {
    const before = embedCalls(plain);

    const reply = await post(path, { model: NOMIC, ...body, truncate: false });

    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toContain(`the input length exceeds the context length: ${field} is over 2048`);
    expect(embedCalls(plain)).toBe(before);
  });

  it.each([['/api/embed'], ['/api/embeddings'], ['/v1/embeddings']])(
    '%s passes inputs that fit through untouched with truncate: false',
    async (path) => {
      const reply = await post(path, { model: NOMIC, input: words(1000), prompt: words(1000), truncate: false });

      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-fleet-truncated-inputs')).toBeNull();
      expect(lastRequest(plain, '/api/embed')).toEqual({ model: NOMIC, input: [words(1000)], truncate: false });
    },
  );

  it("relays the node's own refusal of an input that fits the router's limit but not the model's context", async () => {
    // The simulated Ollama counts about four characters a token: 2,048 cl100k tokens are ~3,000 of its own.
    const reply = await post('/api/embed', { model: NOMIC, input: words(2048), truncate: false });

    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: 'the input length exceeds the context length' });
  });

  it.each([
    ['/api/embed', { input: 'x' }],
    ['/api/embeddings', { prompt: 'x' }],
  ])('%s answers a missing model with 400 model is required', async (path, body) => {
    const reply = await post(path, body);

    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: 'model is required' });
  });

  it.each([
    ['/v1/embeddings', { input: 'x' }],
    ['/api/embed', { input: 'x' }],
    ['/api/embeddings', { prompt: 'x' }],
  ])('%s answers an unknown model with 404', async (path, body) => {
    const reply = await post(path, { model: 'no-such-embedder', ...body });

    expect(reply.status).toBe(404);
    expect(JSON.stringify(reply.body)).toContain("model 'no-such-embedder' not found");
  });

  it('answers a chat model with 400: it does not embed', async () => {
    const reply = await post('/v1/embeddings', { model: 'llama3.2:3b', input: 'x' });

    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: { param: 'model' } });
  });

  it('answers 503 when the only node with the model fails, with Retry-After', async () => {
    flaky.faults.failNext(10, 500);
    try {
      const reply = await post('/api/embed', { model: FLAKY_MODEL, input: 'x' });

      expect(reply.status).toBe(503);
      expect(reply.headers.get('retry-after')).not.toBeNull();
      expect(String(reply.body['error'])).toContain('flaky');
    } finally {
      await flaky.faults.reset();
    }
  });

  it.each([
    ['/v1/embeddings', { input: ['a', 'b'] }],
    ['/api/embed', { input: ['a', 'b'] }],
  ])('%s answers 502 when the node returns fewer vectors than inputs', async (path, body) => {
    const reply = await post(path, { model: LOSSY_MODEL, ...body });

    expect(reply.status).toBe(502);
    expect(JSON.stringify(reply.body)).toContain('the node returned 1 vectors for 2 inputs');
  });

  it('answers 502 when an Ollama node ignores dimensions', async () => {
    // The node cannot widen nomic's 768 to 1024: it answers 768, as Ollama does.
    const reply = await post('/v1/embeddings', { model: NOMIC, input: 'x', dimensions: 1024 });

    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({ error: { message: 'the node ignored dimensions 1024: its vectors have 768' } });
  });

  it('answers 502 when dimensions is asked of a sidecar at another width, and 200 at its own', async () => {
    const other = await post('/v1/embeddings', { model: SIDECAR_MODEL, input: 'x', dimensions: 128 });
    const native = await post('/v1/embeddings', { model: SIDECAR_MODEL, input: 'x', dimensions: 384 });

    expect(other.status).toBe(502);
    expect(native.status).toBe(200);
  });

  it("relays a node's 4xx with its status and words", async () => {
    plain.faults.failNext(1, 400);
    try {
      const reply = await post('/api/embed', { model: NOMIC, input: 'x' });

      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: 'simulated failure' });
    } finally {
      await plain.faults.reset();
    }
  });
});

describe('traces and usage', () => {
  it('writes an embeddings trace with the node, model, tokens and tags of each request', async () => {
    await post(
      '/v1/embeddings',
      { model: NOMIC, input: ['trace me', 'and me'], user: 'ada', metadata: { tags: ['rag'] } },
      { 'x-service-tags': 'e2e:trace-float' },
    );
    const expected = await direct(plain, ['trace me', 'and me']);

    const [trace] = await tracesTagged('e2e:trace-float');

    expect(trace).toMatchObject({
      style: 'embeddings',
      status: 'completed',
      requestedModel: NOMIC,
      servedModel: NOMIC,
      nodeId: 'plain',
      promptTokens: expected.prompt_eval_count,
      completionTokens: 0,
      tags: ['rag', 'e2e:trace-float', 'user:ada'],
    });
  });

  it('traces the sidecar’s requests with the router’s token count, and failures as failed', async () => {
    await post('/api/embed', { model: SIDECAR_MODEL, input: 'sidecar trace' }, { 'x-service-tags': 'e2e:sidecar' });
    await post('/api/embed', { model: LOSSY_MODEL, input: ['a', 'b'] }, { 'x-service-tags': 'e2e:lossy' });

    const [sidecar] = await tracesTagged('e2e:sidecar');
    const [failed] = await tracesTagged('e2e:lossy');

    expect(sidecar).toMatchObject({
      style: 'embeddings',
      status: 'completed',
      nodeId: 'studio',
      servedModel: SIDECAR_MODEL,
      promptTokens: countTokens('sidecar trace'),
    });
    expect(failed).toMatchObject({ style: 'embeddings', status: 'failed', nodeId: 'lossy' });
    expect(failed?.error).toContain('vectors for 2 inputs');
  });
});
