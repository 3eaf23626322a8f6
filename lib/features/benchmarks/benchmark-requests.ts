/**
 * One request of a benchmark run (issue 22 item 6; anchor §6.6), through the router's own routed
 * exchange (lib/services/dispatch/routed-exchange) — ranked, queued on the node like any request,
 * retried within the dispatcher's bound, released, traced — and measured as a `BenchmarkSample`: a
 * streamed `/api/chat` with a short canned prompt (time to first token from the node's first line, tokens
 * and decode rate from its final line), an embedding, an image. Every trace carries the run's id and the
 * tag `benchmark`, so the users' analytics can leave it out.
 */

import type { RequestStyle, Trace } from '../../core/analytics/trace-record';
import type { BenchmarkModelType, BenchmarkSample } from '../../core/benchmarks/benchmark-report';
import { toRouterError, UpstreamError } from '../../core/errors';
import { ollamaEmbedNodeRequest, sidecarEmbedRequest } from '../../core/protocols/embeddings/embed-node-request';
import type { ImageJob } from '../../core/protocols/images/image-job';
import { toOllamaImageRequest, toSidecarImageRequest } from '../../core/protocols/images/to-image-node-request';
import { parseOllamaChatLine } from '../../core/protocols/ollama/parse-ollama-line';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import type { AbortSource } from '../../core/stream/abort-source';
import { createNdjsonDecoder } from '../../core/stream/ndjson-decoder';
import { parseJson } from '../../core/wire/json';
import type { TraceRecorder } from '../../services/analytics/trace';
import type { Dispatcher } from '../../services/dispatch/dispatcher';
import { type ExchangeDeps, exchangeWhole, nodeRefusal, routedExchange } from '../../services/dispatch/routed-exchange';
import type { NodeAttempt, NodeReply } from '../../services/dispatch/transport';
import { UNCHECKED } from '../../services/http/caller';
import type { HttpRequest } from '../../services/http/request';
import { openNodeStream, readNodeBody } from '../../services/node-client/node-stream';

/** The tag every benchmark request carries. */
export const BENCHMARK_TAG = 'benchmark';

const PROMPTS = [
  'Explain what a hash map is in two sentences.',
  'Write a haiku about GPUs.',
  'List three uses of a load balancer.',
  'What is the capital of France? Answer in one sentence.',
  'Summarise the idea of back-pressure in one paragraph.',
];

/** Completion tokens a chat request asks for: short answers, many requests. */
const ANSWER_TOKENS = 128;

export interface BenchmarkRequestDeps {
  readonly dispatcher: Dispatcher;
  readonly traces: TraceRecorder;
  readonly firstByteTimeoutMs: number;
}

export interface BenchmarkRequest {
  readonly runId: string;
  readonly sequence: number;
  readonly type: BenchmarkModelType;
  readonly model: string;
  /** The run stopping: in-flight requests are cancelled. */
  readonly signal: AbortSource;
}

/** The client request a benchmark trace is about: the router itself, no HTTP request behind it. */
function benchmarkHttpRequest(requestId: string, path: string): HttpRequest {
  return {
    method: 'POST',
    path,
    resource: undefined,
    headers: {},
    query: {},
    pathParameters: {},
    body: Buffer.alloc(0),
    bodyText: () => '',
    sourceIp: 'benchmark',
    requestId,
    caller: UNCHECKED,
    header: () => undefined,
  };
}

/** Records every trace of the run with its id (retried attempts and failures too). */
function runTraces(traces: TraceRecorder, runId: string): TraceRecorder {
  return { record: (trace: Trace) => traces.record({ ...trace, benchmarkRunId: runId }) };
}

const STYLE: Readonly<Record<BenchmarkModelType, RequestStyle>> = {
  llm: 'ollama-chat',
  embed: 'embeddings',
  image: 'image',
};
const KIND = { llm: 'chat', embed: 'embedding', image: 'image' } as const;
const PATH = { llm: '/api/chat', embed: '/api/embed', image: '/api/generate-image' } as const;

/** Runs one request of the run; never throws: a failure is a failed sample. */
export async function benchmarkRequest(deps: BenchmarkRequestDeps, input: BenchmarkRequest): Promise<BenchmarkSample> {
  const startedAt = Date.now();
  const routing: RoutingRequest = {
    model: input.model,
    fallbackModels: [],
    kind: KIND[input.type],
    needsVision: false,
  };
  const exchangeDeps: ExchangeDeps = { dispatcher: deps.dispatcher, traces: runTraces(deps.traces, input.runId) };
  const requestId = `${input.runId}-${input.sequence}`;
  const common = {
    routing,
    signal: input.signal,
    traced: {
      request: benchmarkHttpRequest(requestId, PATH[input.type]),
      style: STYLE[input.type],
      routing,
      tags: [BENCHMARK_TAG],
    },
  };
  try {
    if (input.type === 'llm') return await streamedChat(deps, exchangeDeps, common, input.model);
    const result = await exchangeWhole(
      exchangeDeps,
      { ...common, send: input.type === 'embed' ? sendEmbed : sendImage },
      (answer) => {
        if (answer.status >= 400) throw nodeRefusal(answer);
        const promptTokens = input.type === 'embed' ? promptEvalCount(answer.body) : undefined;
        return { value: answer.attempt.node.id, ...(promptTokens !== undefined ? { promptTokens } : {}) };
      },
    );
    return { type: input.type, model: input.model, nodeId: result.value, ok: true, latencyMs: result.elapsedMs };
  } catch (error) {
    const nodeId = toRouterError(error).headers?.['x-fleet-node'];
    return { type: input.type, model: input.model, nodeId, ok: false, latencyMs: Date.now() - startedAt };
  }
}

function promptEvalCount(body: Buffer): number | undefined {
  const parsed = parseJson(body.toString('utf8'));
  const count =
    parsed.ok && typeof parsed.value === 'object' && parsed.value !== null
      ? Reflect.get(parsed.value, 'prompt_eval_count')
      : undefined;
  return typeof count === 'number' ? count : undefined;
}

function sendEmbed(attempt: NodeAttempt, signal: AbortSource): Promise<NodeReply> {
  const texts = [PROMPTS[0] as string];
  if (attempt.placement.backend === 'ollama') {
    return openNodeStream(attempt.node.url, '/api/embed', ollamaEmbedNodeRequest({}, attempt.model, texts), { signal });
  }
  const sidecar = attempt.node.sidecars.textEmbedding;
  if (sidecar === undefined) throw new UpstreamError(`node ${attempt.node.id} has no text-embedding sidecar`);
  return openNodeStream(sidecar.url, '/embed', sidecarEmbedRequest(attempt.model, texts), { signal });
}

function sendImage(attempt: NodeAttempt, signal: AbortSource): Promise<NodeReply> {
  const job: ImageJob = {
    model: attempt.model,
    fallbackModels: [],
    prompt: 'a lighthouse on a rocky coast at dusk',
    width: 512,
    height: 512,
    extra: {},
  };
  if (attempt.placement.backend === 'ollama') {
    return openNodeStream(attempt.node.url, '/api/generate', toOllamaImageRequest(job, attempt.model), { signal });
  }
  const sidecar = attempt.node.sidecars.image;
  if (sidecar === undefined) throw new UpstreamError(`node ${attempt.node.id} has no image sidecar`);
  return openNodeStream(sidecar.url, '/api/generate-image', toSidecarImageRequest(job, attempt.model), { signal });
}

/** What the node's stream said, measured as it came. */
interface ChatReading {
  ttftMs?: number;
  promptTokens?: number;
  completionTokens?: number;
  decodeTokensPerSec?: number;
  finishReason?: string;
  done: boolean;
}

async function readChatStream(reply: NodeReply, startedAt: number): Promise<ChatReading> {
  const reading: ChatReading = { done: false };
  const decoder = createNdjsonDecoder({ maxLineBytes: 1 << 20 });
  const take = (lines: ReturnType<typeof decoder.push>) => {
    for (const line of lines) {
      reading.ttftMs ??= Date.now() - startedAt;
      const parsed = parseOllamaChatLine(line);
      if (!parsed.ok) throw parsed.error;
      const { chunk } = parsed;
      if (chunk.done !== true) continue;
      reading.done = true;
      if (typeof chunk.prompt_eval_count === 'number') reading.promptTokens = chunk.prompt_eval_count;
      if (typeof chunk.eval_count === 'number') reading.completionTokens = chunk.eval_count;
      if (typeof chunk.done_reason === 'string') reading.finishReason = chunk.done_reason;
      const evalNs = chunk.eval_duration;
      if (typeof chunk.eval_count === 'number' && typeof evalNs === 'number' && evalNs > 0) {
        reading.decodeTokensPerSec = chunk.eval_count / (evalNs / 1e9);
      }
    }
  };
  for await (const bytes of reply.body) take(decoder.push(bytes));
  take(decoder.end());
  return reading;
}

async function streamedChat(
  deps: BenchmarkRequestDeps,
  exchangeDeps: ExchangeDeps,
  common: Omit<Parameters<typeof routedExchange>[1], 'send'>,
  model: string,
): Promise<BenchmarkSample> {
  const prompt = PROMPTS[Math.floor(Math.random() * PROMPTS.length)] as string;
  const body = (served: string) => ({
    model: served,
    messages: [{ role: 'user', content: prompt }],
    stream: true,
    options: { num_predict: ANSWER_TOKENS },
  });
  return routedExchange(
    exchangeDeps,
    {
      ...common,
      send: (attempt, signal) =>
        openNodeStream(attempt.node.url, '/api/chat', body(attempt.model), {
          signal,
          firstByteTimeoutMs: deps.firstByteTimeoutMs,
        }),
    },
    async ({ reply, attempt }, startedAt) => {
      if (reply.status >= 400) throw nodeRefusal({ status: reply.status, body: await readNodeBody(reply) });
      const reading = await readChatStream(reply, startedAt);
      const latencyMs = Date.now() - startedAt;
      const ok = reading.done && !common.signal.aborted;
      const sample: BenchmarkSample = {
        type: 'llm',
        model,
        nodeId: attempt.node.id,
        ok,
        latencyMs,
        ...(reading.ttftMs !== undefined ? { ttftMs: reading.ttftMs } : {}),
        ...(reading.promptTokens !== undefined ? { promptTokens: reading.promptTokens } : {}),
        ...(reading.completionTokens !== undefined ? { completionTokens: reading.completionTokens } : {}),
        ...(reading.decodeTokensPerSec !== undefined ? { decodeTokensPerSec: reading.decodeTokensPerSec } : {}),
      };
      return {
        status: ok ? 'completed' : common.signal.aborted ? 'client_disconnected' : 'incomplete',
        value: sample,
        fields: {
          ...(reading.ttftMs !== undefined ? { timeToFirstTokenMs: reading.ttftMs } : {}),
          ...(reading.promptTokens !== undefined ? { promptTokens: reading.promptTokens } : {}),
          ...(reading.completionTokens !== undefined ? { completionTokens: reading.completionTokens } : {}),
          ...(reading.finishReason !== undefined ? { finishReason: reading.finishReason } : {}),
        },
      };
    },
  );
}
