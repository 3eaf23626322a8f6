/**
 * A routed request's trace (../analytics/trace-record) as an OpenTelemetry span (issue 44 item 2), in the
 * GenAI semantic conventions: `gen_ai.operation.name` and the requested and served models, the token
 * counts, time to the first chunk, `error.type` on a failure, and under `fleet.` what only the fleet
 * knows — the node, its score, retries, the fallback, tags, priority, application and the waits.
 *
 * The conventions' inference span is a CLIENT span named `{gen_ai.operation.name} {gen_ai.request.model}`:
 * the router calls a model that runs in another process, the node, as the caller's span's child. The
 * nodes are Ollama servers, and the sidecars beside them that serve rerank, images and speech count as
 * theirs: `gen_ai.provider.name` is `ollama`. Changes to the fleet (a pull, a delete, a copy, a settings
 * write, a benchmark's start or cancel: `CHANGE_STYLES`) are no request to a model and make no span. Pure.
 */

import { type ChangeStyle, isChangeStyle, type RequestStyle, type Trace } from '../analytics/trace-record';

export type SpanAttributeValue = string | number | boolean | readonly string[];

export interface GenAiSpan {
  readonly name: string;
  readonly attributes: Readonly<Record<string, SpanAttributeValue>>;
  /** The status message of a span that ended in error; absent when the status is unset (no error). */
  readonly error?: string;
  /** Epoch ms: the request's arrival, and its end (for a retried attempt, when the attempt failed). */
  readonly startMs: number;
  readonly endMs: number;
}

/** The provider every span names: the fleet's nodes speak Ollama's API. */
export const GEN_AI_PROVIDER = 'ollama';

interface Operation {
  readonly name: string;
  /** `gen_ai.output.type`, where the output is not the operation's usual text. */
  readonly outputType?: string;
}

/** The conventions' well-known operation where one applies; rerank has none and is named as itself. */
const OPERATIONS: Readonly<Record<Exclude<RequestStyle, ChangeStyle>, Operation>> = {
  'ollama-chat': { name: 'chat' },
  'ollama-generate': { name: 'text_completion' },
  'openai-chat': { name: 'chat' },
  'openai-responses': { name: 'chat' },
  'anthropic-messages': { name: 'chat' },
  embeddings: { name: 'embeddings' },
  rerank: { name: 'rerank' },
  image: { name: 'generate_content', outputType: 'image' },
  transcription: { name: 'generate_content', outputType: 'text' },
};

/** What the trace's status says about errors: `retried` is an attempt that failed before another. */
const FAILED: ReadonlySet<Trace['status']> = new Set(['failed', 'incomplete', 'retried']);

/** The span `trace` is exported as; undefined for a trace that makes none (a change: a pull, a delete…). */
export function genAiSpan(trace: Trace): GenAiSpan | undefined {
  if (isChangeStyle(trace.style)) return undefined;
  const operation = OPERATIONS[trace.style];
  const attributes: Record<string, SpanAttributeValue> = {
    'gen_ai.operation.name': operation.name,
    'gen_ai.provider.name': GEN_AI_PROVIDER,
  };
  const model = trace.status === 'retried' ? (trace.servedModel ?? trace.requestedModel) : trace.requestedModel;
  if (trace.requestedModel !== '') attributes['gen_ai.request.model'] = trace.requestedModel;
  if (operation.outputType !== undefined) attributes['gen_ai.output.type'] = operation.outputType;
  addResponse(attributes, trace);
  addFleet(attributes, trace);
  const failed = FAILED.has(trace.status);
  if (failed) attributes['error.type'] = trace.errorCode ?? '_OTHER';
  const span: GenAiSpan = {
    name: model === '' ? operation.name : `${operation.name} ${model}`,
    attributes,
    startMs: trace.startedAt,
    endMs: trace.startedAt + trace.latencyMs,
  };
  return failed ? { ...span, error: trace.error ?? trace.status } : span;
}

/** What the node answered: the served model, tokens, time to the first chunk (seconds), the finish reason. */
function addResponse(attributes: Record<string, SpanAttributeValue>, trace: Trace): void {
  if (trace.servedModel !== undefined) attributes['gen_ai.response.model'] = trace.servedModel;
  if (trace.promptTokens !== undefined) attributes['gen_ai.usage.input_tokens'] = trace.promptTokens;
  if (trace.completionTokens !== undefined) attributes['gen_ai.usage.output_tokens'] = trace.completionTokens;
  if (trace.cachedTokens !== undefined) attributes['gen_ai.usage.cache_read.input_tokens'] = trace.cachedTokens;
  if (trace.timeToFirstTokenMs !== undefined) {
    attributes['gen_ai.response.time_to_first_chunk'] = trace.timeToFirstTokenMs / 1000;
  }
  if (trace.finishReason !== undefined) attributes['gen_ai.response.finish_reasons'] = [trace.finishReason];
}

/** The fleet's own: where the request went and what it waited for, under `fleet.`. */
function addFleet(attributes: Record<string, SpanAttributeValue>, trace: Trace): void {
  attributes['fleet.request_id'] = trace.requestId;
  attributes['fleet.style'] = trace.style;
  attributes['fleet.status'] = trace.status;
  attributes['fleet.retries'] = trace.retries;
  if (trace.clientIp !== '') attributes['client.address'] = trace.clientIp;
  if (trace.nodeId !== undefined) attributes['fleet.node'] = trace.nodeId;
  if (trace.score !== undefined) attributes['fleet.score'] = trace.score;
  if (trace.fallbackModel !== undefined) attributes['fleet.fallback_model'] = trace.fallbackModel;
  if (trace.tags.length > 0) attributes['fleet.tags'] = trace.tags;
  if (trace.priority !== undefined) attributes['fleet.priority'] = trace.priority;
  if (trace.app !== undefined) attributes['fleet.application'] = trace.app;
  if (trace.queueWaitMs !== undefined) attributes['fleet.queue_wait_ms'] = trace.queueWaitMs;
  if (trace.tableWaitMs !== undefined) attributes['fleet.table_wait_ms'] = trace.tableWaitMs;
  if (trace.skipped !== undefined && trace.skipped.length > 0) attributes['fleet.skipped'] = trace.skipped;
  if (trace.context !== undefined) attributes['fleet.context'] = trace.context;
  if (trace.loadMs !== undefined) attributes['fleet.load_ms'] = trace.loadMs;
}
