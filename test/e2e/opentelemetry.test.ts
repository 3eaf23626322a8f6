/**
 * Spans over OTLP/HTTP end to end (issue 44 item 2): the built emulator with `OTEL_EXPORTER_OTLP_ENDPOINT`
 * pointing at a receiver in this test, a simulated node, and requests in the four chat styles, embeddings
 * and rerank, each sent with a client's `traceparent`. The receiver decodes what arrives with
 * OpenTelemetry's own OTLP protobuf definitions; the test asserts the GenAI and fleet attributes, the
 * client's span as the parent, and the `traceparent` the node was sent. A router whose endpoint is a closed
 * port still answers every request, as fast as one that exports nothing.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimAgent, type SimNode, startSimAgent, startSimNode } from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter, waitForModel } from './router-process';

const MODEL = 'llama3.2:3b';
const EMBEDDER = 'nomic-embed-text:latest';
const RERANKER = 'bge-reranker-base';

/** OpenTelemetry's generated protobuf root of the OTLP definitions (opentelemetry-proto). */
interface OtlpRoot {
  opentelemetry: {
    proto: {
      collector: {
        trace: { v1: { ExportTraceServiceRequest: { decode(bytes: Uint8Array): ExportRequest } } };
      };
    };
  };
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | { toNumber(): number };
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: AnyValue[] };
}

interface KeyValue {
  key: string;
  value: AnyValue;
}

interface OtlpSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId: Uint8Array;
  name: string;
  kind: number;
  startTimeUnixNano: unknown;
  endTimeUnixNano: unknown;
  attributes: KeyValue[];
  status?: { code?: number; message?: string };
}

interface ExportRequest {
  resourceSpans: { resource?: { attributes: KeyValue[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

type Plain = string | number | boolean | Plain[] | undefined;

/** A span as the test reads it: hex ids, attributes as plain values. */
interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly statusCode: number;
  readonly attributes: Readonly<Record<string, Plain>>;
  readonly resource: Readonly<Record<string, Plain>>;
}

const root = require('@opentelemetry/otlp-proto-exporter-base/build/src/generated/root') as OtlpRoot;
const ExportTraceServiceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

function plain(value: AnyValue): Plain {
  if (value.stringValue !== undefined && value.stringValue !== null) return value.stringValue;
  if (value.boolValue !== undefined && value.boolValue !== null) return value.boolValue;
  if (value.doubleValue !== undefined && value.doubleValue !== null) return value.doubleValue;
  if (value.arrayValue !== undefined && value.arrayValue !== null) return value.arrayValue.values.map(plain);
  if (value.intValue !== undefined && value.intValue !== null) {
    return typeof value.intValue === 'number' ? value.intValue : value.intValue.toNumber();
  }
  return undefined;
}

function attributes(list: readonly KeyValue[]): Record<string, Plain> {
  return Object.fromEntries(list.map((entry) => [entry.key, plain(entry.value)]));
}

const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('hex');

/** An OTLP/HTTP receiver: every export request decoded, its spans kept in arrival order. */
function startReceiver(): Promise<{ server: Server; url: string; spans: ReceivedSpan[]; contentTypes: string[] }> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      contentTypes.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
      const decoded = ExportTraceServiceRequest.decode(Buffer.concat(chunks));
      for (const resourceSpans of decoded.resourceSpans) {
        const resource = attributes(resourceSpans.resource?.attributes ?? []);
        for (const scope of resourceSpans.scopeSpans) {
          for (const span of scope.spans) {
            spans.push({
              traceId: hex(span.traceId),
              spanId: hex(span.spanId),
              parentSpanId: hex(span.parentSpanId),
              name: span.name,
              kind: span.kind,
              statusCode: span.status?.code ?? 0,
              attributes: attributes(span.attributes),
              resource,
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/x-protobuf' });
      response.end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}`, spans, contentTypes });
    }),
  );
}

/** A client's span: a fresh trace, sampled. */
function clientSpan(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let node: SimNode;
let ranker: SimAgent;
let router: RouterProcess;

beforeAll(async () => {
  receiver = await startReceiver();
  node = await startSimNode({
    id: 'otel-node',
    models: CATALOG.filter((entry) => entry.name === MODEL || entry.name === EMBEDDER),
    loaded: [MODEL],
  });
  router = await startRouter({
    FLEET_NODES: `otel-node=${node.url}`,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '50',
    OTEL_SERVICE_NAME: 'fleet-router-e2e',
  });
  ranker = await startSimAgent({
    nodeId: 'ranker',
    routerUrl: router.url,
    intervalMs: 60_000,
    ollamaOptions: { id: 'ranker', models: [] },
    textEmbedding: [{ name: RERANKER, dimensions: 0, kind: 'rerank' }],
  });
  await ranker.sendHeartbeat();
  await waitForModel(router.url, MODEL);
}, 30_000);

afterAll(async () => {
  await router?.stop();
  await ranker?.stop();
  await node?.close();
  await new Promise((resolve) => receiver?.server.close(resolve));
});

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

/** The span the router exported for the client span's trace, once it arrived. */
function exportedSpan(traceId: string): Promise<ReceivedSpan> {
  return eventually(async () => {
    const found = receiver.spans.find(
      (span) => span.traceId === traceId && span.attributes['fleet.status'] !== 'retried',
    );
    if (found === undefined) throw new Error(`no span of trace ${traceId} among ${receiver.spans.length}`);
    return found;
  });
}

/** The `traceparent` the node was sent with the request of `traceId`. */
function traceparentAtNode(traceId: string): string | undefined {
  const header = node.requests.find((request) => String(request.headers['traceparent'] ?? '').includes(traceId));
  const value = header?.headers['traceparent'];
  return Array.isArray(value) ? value[0] : value;
}

const CHATS = [
  ['ollama-chat', '/api/chat', { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: false }],
  ['openai-chat', '/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true }],
  ['anthropic-messages', '/v1/messages', { model: MODEL, max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] }],
  ['openai-responses', '/v1/responses', { model: MODEL, input: 'hi' }],
] as const;

describe('spans exported over OTLP/HTTP', () => {
  it.each(CHATS)(
    'exports a %s request as a chat span under the client span, and passes the router span on to the node',
    async (style, path, body) => {
      const client = clientSpan();

      expect(await post(router.url, path, body, { traceparent: client.traceparent, 'x-service-tags': 'e2e' })).toBe(
        200,
      );
      const span = await exportedSpan(client.traceId);

      expect(span).toMatchObject({
        name: `chat ${MODEL}`,
        kind: 3, // SPAN_KIND_CLIENT
        parentSpanId: client.spanId,
        statusCode: 0,
      });
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'ollama',
        'gen_ai.request.model': MODEL,
        'gen_ai.response.model': MODEL,
        'fleet.style': style,
        'fleet.node': 'otel-node',
        'fleet.status': 'completed',
        'fleet.retries': 0,
        'fleet.tags': ['e2e'],
        'fleet.priority': 'normal',
        'fleet.application': 'tag:e2e',
      });
      expect(span.attributes['gen_ai.usage.input_tokens']).toEqual(expect.any(Number));
      expect(span.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      expect(span.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThan(0);
      expect(span.attributes['fleet.score']).toEqual(expect.any(Number));
      expect(span.resource['service.name']).toBe('fleet-router-e2e');
      expect(traceparentAtNode(client.traceId)).toBe(`00-${client.traceId}-${span.spanId}-01`);
    },
  );

  it('exports embeddings and rerank under their own operations', async () => {
    const embedding = clientSpan();
    const reranking = clientSpan();

    expect(
      await post(
        router.url,
        '/v1/embeddings',
        { model: EMBEDDER, input: 'hello' },
        { traceparent: embedding.traceparent },
      ),
    ).toBe(200);
    expect(
      await post(
        router.url,
        '/v1/rerank',
        { model: RERANKER, query: 'q', documents: ['a', 'b'] },
        { traceparent: reranking.traceparent },
      ),
    ).toBe(200);

    const embedSpan = await exportedSpan(embedding.traceId);
    expect(embedSpan).toMatchObject({ name: `embeddings ${EMBEDDER}`, parentSpanId: embedding.spanId });
    expect(embedSpan.attributes['gen_ai.operation.name']).toBe('embeddings');
    expect(traceparentAtNode(embedding.traceId)).toBe(`00-${embedding.traceId}-${embedSpan.spanId}-01`);
    const rerankSpan = await exportedSpan(reranking.traceId);
    expect(rerankSpan).toMatchObject({ name: `rerank ${RERANKER}`, parentSpanId: reranking.spanId });
    expect(rerankSpan.attributes['fleet.node']).toBe('ranker');
  });

  it('starts a trace of its own for a request without traceparent, and marks a failure as an error', async () => {
    const before = receiver.spans.length;

    const body = { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }], stream: false };
    expect(await post(router.url, '/api/chat', body)).toBe(404);
    const span = await eventually(async () => {
      const found = receiver.spans
        .slice(before)
        .find((candidate) => candidate.attributes['gen_ai.request.model'] === 'no-such-model');
      if (found === undefined) throw new Error('no span of the failed request yet');
      return found;
    });

    expect(span.parentSpanId).toBe('');
    expect(span.statusCode).toBe(2); // STATUS_CODE_ERROR
    expect(span.attributes['error.type']).toEqual(expect.any(String));
    expect(span.attributes['error.type']).not.toBe('_OTHER');
    expect(receiver.contentTypes.every((line) => line === 'POST /v1/traces application/x-protobuf')).toBe(true);
  });
});

describe('a router whose OTLP endpoint cannot be reached', () => {
  let closedPortRouter: RouterProcess;
  let plainRouter: RouterProcess;

  beforeAll(async () => {
    // A port that was just free, and is closed again: every export is refused.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    [closedPortRouter, plainRouter] = await Promise.all([
      startRouter({
        FLEET_NODES: `otel-node=${node.url}`,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_BSP_SCHEDULE_DELAY: '0',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1',
      }),
      startRouter({ FLEET_NODES: `otel-node=${node.url}` }),
    ]);
    await Promise.all([waitForModel(closedPortRouter.url, MODEL), waitForModel(plainRouter.url, MODEL)]);
  }, 30_000);

  afterAll(async () => {
    await Promise.all([closedPortRouter?.stop(), plainRouter?.stop()]);
  });

  /** The median time of `count` chats, one after another, each of which must succeed. */
  async function medianChatMs(url: string, count: number): Promise<number> {
    const times: number[] = [];
    for (let index = 0; index < count; index += 1) {
      const started = performance.now();
      const status = await post(
        url,
        '/api/chat',
        { model: MODEL, messages: [{ role: 'user', content: `hi ${index}` }], stream: false },
        { traceparent: clientSpan().traceparent },
      );
      expect(status).toBe(200);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)] ?? Number.POSITIVE_INFINITY;
  }

  it('answers every request, no slower than a router that exports nothing, and says it dropped spans', async () => {
    await medianChatMs(closedPortRouter.url, 3);
    await medianChatMs(plainRouter.url, 3);

    const exporting = await medianChatMs(closedPortRouter.url, 15);
    const plain = await medianChatMs(plainRouter.url, 15);

    // The failed exports happen beside the requests, never inside them: a refused connection is fast,
    // so any wait for it would show, and 50 ms is far above the noise of a 2-core host.
    expect(exporting).toBeLessThan(plain + 50);
    await eventually(async () => expect(closedPortRouter.output()).toContain('spans dropped'));
  });
});
