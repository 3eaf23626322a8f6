/**
 * One trace as `GET /dashboard/api/traces` shows it (issue 22 item 2; reference anchor-ollama-herd
 * §6.3): the reference's snake_case fields (`model` is the model that served, `original_model` the one
 * asked for, `excluded_nodes` the nodes routing passed over, `original_format` the API the client spoke,
 * `timestamp` epoch seconds of arrival) and every other field the router records. Absent is `null`.
 * Pure.
 */

import type { Trace } from './trace-record';

export interface TraceView {
  readonly request_id: string;
  readonly model: string;
  readonly original_model: string;
  readonly node_id: string | null;
  readonly score: number | null;
  readonly scores_breakdown: Readonly<Record<string, number>> | null;
  readonly status: string;
  readonly latency_ms: number;
  readonly time_to_first_token_ms: number | null;
  readonly prompt_tokens: number | null;
  readonly completion_tokens: number | null;
  readonly retry_count: number;
  readonly fallback_used: boolean;
  readonly fallback_model: string | null;
  readonly excluded_nodes: readonly string[];
  readonly client_ip: string;
  readonly original_format: string;
  readonly error_message: string | null;
  /** Epoch seconds the request arrived (fractions: ms precision). */
  readonly timestamp: number;
  readonly tags: readonly string[];
  readonly finish_reason: string | null;
  readonly context: string | null;
  readonly cached_tokens: number | null;
  readonly load_ms: number | null;
  /** The node's own prompt and answer times, ms (Ollama `prompt_eval_duration`, `eval_duration`). */
  readonly prompt_eval_ms: number | null;
  readonly eval_ms: number | null;
  /** The router's estimate of the prompt it sent, tokens (`prompt_tokens` is what the node evaluated). */
  readonly prompt_estimate_tokens: number | null;
  /** How long routing waited for the table's fleet read (a cold start, or a thawed container's first request). */
  readonly table_wait_ms: number | null;
  /** How long the request waited in the router's queues for a node's slot, ms (issue 43). */
  readonly queue_wait_ms: number | null;
  /** `high`, `normal` or `low`; null for the router's own work. */
  readonly priority: string | null;
  /** The application it was counted for in fair sharing (`key:…`, `tag:…`, `client:…`). */
  readonly app: string | null;
  /** The id of the key that sent it (its name, else a short digest; never the key); null without keys. */
  readonly key: string | null;
  readonly benchmark_run_id: string | null;
}

export function traceView(trace: Trace): TraceView {
  return {
    request_id: trace.requestId,
    model: trace.servedModel ?? trace.requestedModel,
    original_model: trace.requestedModel,
    node_id: trace.nodeId ?? null,
    score: trace.score ?? null,
    scores_breakdown: trace.scoreBreakdown ?? null,
    status: trace.status,
    latency_ms: trace.latencyMs,
    time_to_first_token_ms: trace.timeToFirstTokenMs ?? null,
    prompt_tokens: trace.promptTokens ?? null,
    completion_tokens: trace.completionTokens ?? null,
    retry_count: trace.retries,
    fallback_used: trace.fallbackModel !== undefined,
    fallback_model: trace.fallbackModel ?? null,
    excluded_nodes: trace.skipped ?? [],
    client_ip: trace.clientIp,
    original_format: trace.style,
    error_message: trace.error ?? null,
    timestamp: trace.startedAt / 1000,
    tags: trace.tags,
    finish_reason: trace.finishReason ?? null,
    context: trace.context ?? null,
    cached_tokens: trace.cachedTokens ?? null,
    load_ms: trace.loadMs ?? null,
    prompt_eval_ms: trace.promptEvalMs ?? null,
    eval_ms: trace.evalMs ?? null,
    prompt_estimate_tokens: trace.promptEstimateTokens ?? null,
    table_wait_ms: trace.tableWaitMs ?? null,
    queue_wait_ms: trace.queueWaitMs ?? null,
    priority: trace.priority ?? null,
    app: trace.app ?? null,
    key: trace.key ?? null,
    benchmark_run_id: trace.benchmarkRunId ?? null,
  };
}
