/**
 * Request traces and usage (issue: traces and usage): every routed request — completed, failed,
 * retried (one trace per failed attempt that was retried elsewhere), client_disconnected, incomplete —
 * is written behind to the table with where it went and how it went, and adds to the day's usage
 * counters per node and model and per tag. Nothing here waits for the table (DESIGN decision 5) and
 * nothing is dropped: the write-behind queue retries until the table takes it.
 *
 * Traces are written in pages: the recorder keeps each trace as its JSON and, whenever the queue drains
 * (at least once a second, and before a Lambda invocation ends), hands the write-behind one item per
 * page of up to `maxPageBytes` — `{"traces":[…]}` under `tracePageKey`. A request then costs a
 * string in memory instead of a table write of its own: at a thousand requests a second that is one or
 * two writes a second, not forty BatchWrites, and the AWS SDK's per-request work goes with them.
 */

import { merged } from '../merged';
import type { DocItem } from '../store/item';
import { type ItemKey, tagUsageKey, tracePageKey, usageKey } from '../store/keys';
import type { ItemSource, WriteBehind } from '../store/write-behind';

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

/** What a page item's `doc` holds. */
export interface TracePage {
  readonly traces: readonly Trace[];
}

export interface TraceRecorderOptions {
  /** This writer's id among the router's instances: page keys never collide across instances. */
  readonly instanceId: string;
  /** UTF-8 bytes of trace JSON per page; DynamoDB's item limit is 400 KB. Default 256 KB. */
  readonly maxPageBytes?: number;
}

/** A node's error text can be long; the trace keeps its start. */
const MAX_ERROR_CHARS = 2000;
const PAGE_OVERHEAD_BYTES = '{"traces":[]}'.length;

export function createTraceRecorder(
  queue: Pick<WriteBehind, 'add' | 'addSource' | 'touch'>,
  options: TraceRecorderOptions,
): TraceRecorder {
  const maxPageBytes = options.maxPageBytes ?? 256 * 1024;
  /**
   * Traces since the last drain, each already its JSON. Serialised as it is recorded, not at the drain:
   * a trace object (with its score breakdown and tags) kept for up to a second outlives two young
   * collections and is copied into the old generation, where a short string costs far less to keep.
   */
  let recorded: RecordedTrace[] = [];
  let sequence = 0;

  const pagesOf = (traces: readonly RecordedTrace[]): DocItem[] => {
    const pages: DocItem[] = [];
    let entries: string[] = [];
    let bytes = 0;
    let firstStartedAt = 0;
    const seal = () => {
      if (entries.length === 0) return;
      const key: ItemKey = tracePageKey(firstStartedAt, options.instanceId, sequence++);
      pages.push({
        ...key,
        expiresAt: Math.floor(firstStartedAt / 1000) + TRACE_RETENTION_SECONDS,
        doc: `{"traces":[${entries.join(',')}]}`,
      });
      entries = [];
      bytes = 0;
    };
    for (const { startedAt, json } of traces) {
      const size = Buffer.byteLength(json);
      if (entries.length > 0 && bytes + size + 1 + PAGE_OVERHEAD_BYTES > maxPageBytes) seal();
      if (entries.length === 0) firstStartedAt = startedAt;
      entries.push(json);
      bytes += size + 1;
    }
    seal();
    return pages;
  };
  const source: ItemSource = {
    hasPending: () => recorded.length > 0,
    drain() {
      const traces = recorded;
      recorded = [];
      return pagesOf(traces);
    },
  };
  queue.addSource(source);

  return {
    record(trace) {
      recorded.push({ startedAt: trace.startedAt, json: traceJson(trace) });
      queue.touch();
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

interface RecordedTrace {
  readonly startedAt: number;
  readonly json: string;
}

/** A trace as its page stores it; a long node error keeps its start. */
function traceJson(trace: Trace): string {
  if (trace.error === undefined || trace.error.length <= MAX_ERROR_CHARS) return JSON.stringify(trace);
  return JSON.stringify(merged<Trace>(trace, { error: `${trace.error.slice(0, MAX_ERROR_CHARS)}…` }));
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
