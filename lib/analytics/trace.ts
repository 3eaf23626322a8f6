/**
 * Request traces and usage (issue: traces and usage): every routed request — completed, failed,
 * retried (one trace per failed attempt that was retried elsewhere), client_disconnected, incomplete —
 * is written behind to the table with where it went and how it went, and adds to the day's usage
 * counters per node and model and per tag. Nothing here waits for the table (DESIGN decision 5) and
 * nothing is dropped: the write-behind queue retries until the table takes it.
 */
import { tagUsageKey, traceKey, usageKey } from '../store/keys';
import type { WriteBehind } from '../store/write-behind';

export type TraceStatus = 'completed' | 'failed' | 'retried' | 'client_disconnected' | 'incomplete';

/** Which API the client spoke. */
export type RequestStyle =
  | 'ollama-chat'
  | 'ollama-generate'
  | 'openai-chat'
  | 'openai-responses'
  | 'anthropic-messages'
  | 'embeddings'
  | 'rerank'
  | 'image'
  | 'transcription'
  | 'pull';

export interface Trace {
  readonly requestId: string;
  /** Epoch ms the request arrived. */
  readonly startedAt: number;
  readonly style: RequestStyle;
  readonly status: TraceStatus;
  readonly requestedModel: string;
  readonly servedModel?: string;
  readonly nodeId?: string;
  readonly score?: number;
  /** Points and reason per routing signal. */
  readonly scoreBreakdown?: Readonly<Record<string, { readonly points: number; readonly reason: string }>>;
  readonly latencyMs: number;
  readonly timeToFirstTokenMs?: number;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly retries: number;
  readonly fallbackModel?: string;
  readonly tags: readonly string[];
  readonly clientIp: string;
  readonly finishReason?: string;
  readonly error?: string;
}

/** Traces are kept 30 days; the TTL attribute lets DynamoDB reap them (reads filter expired ones). */
export const TRACE_RETENTION_SECONDS = 30 * 24 * 3600;

export interface TraceRecorder {
  record(trace: Trace): void;
}

export function createTraceRecorder(queue: Pick<WriteBehind, 'put' | 'add'>): TraceRecorder {
  return {
    record(trace) {
      const key = traceKey(trace.startedAt, trace.requestId);
      queue.put({
        ...key,
        expiresAt: Math.floor(trace.startedAt / 1000) + TRACE_RETENTION_SECONDS,
        doc: JSON.stringify(trace),
      });
      // A retried attempt is part of a request counted by its final trace.
      if (trace.status === 'retried') return;
      const counters = usageCounters(trace);
      if (trace.nodeId !== undefined) {
        const usage = usageKey(trace.startedAt, trace.nodeId, trace.servedModel ?? trace.requestedModel);
        queue.add(usage.pk, usage.sk, counters, {
          node_id: trace.nodeId,
          model: trace.servedModel ?? trace.requestedModel,
        });
      }
      for (const tag of trace.tags) {
        const tagKey = tagUsageKey(trace.startedAt, tag);
        queue.add(tagKey.pk, tagKey.sk, counters, { tag });
      }
    },
  };
}

function usageCounters(trace: Trace): Record<string, number> {
  return {
    requests: 1,
    errors: trace.status === 'completed' ? 0 : 1,
    prompt_tokens: trace.promptTokens ?? 0,
    completion_tokens: trace.completionTokens ?? 0,
    latency_ms: Math.round(trace.latencyMs),
    retries: trace.retries,
  };
}
