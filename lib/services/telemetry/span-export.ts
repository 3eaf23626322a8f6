/**
 * Routed requests exported as OpenTelemetry spans over OTLP/HTTP (issue 44 item 2), built only when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces one) is set (./otel-settings). A request's span is opened
 * when it arrives — its ids made here, its parent the client's `traceparent` — so the node can be sent a
 * `traceparent` naming it; it ends with the request's trace (lib/services/analytics/trace), mapped to the
 * GenAI conventions (lib/core/telemetry/gen-ai-span). A `retried` trace, an attempt that failed on a node
 * before another served the request, is a child span of the request's.
 *
 * Nothing here is on a request's path beyond making two random ids and pushing a record: ended spans wait
 * in a queue bounded by `OTEL_BSP_MAX_QUEUE_SIZE` and go out in batches of `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`,
 * `OTEL_BSP_SCHEDULE_DELAY` after the first is queued or as soon as a batch is full, one export at a time,
 * each bounded by `OTEL_EXPORTER_OTLP_TIMEOUT`. A span that finds the queue full, and every span of a batch
 * the endpoint did not take (unreachable, timed out, refused), is dropped and counted, with a warning
 * (rate limited); nothing is retried, so an endpoint that is down costs a request nothing. A Lambda
 * invocation flushes the queue before it ends, as it flushes the write-behind (lib/instance.ts).
 *
 * The OTLP encoding is OpenTelemetry's own (./otlp-encoding), loaded on the first export, never at a cold
 * start.
 */

import { randomBytes } from 'node:crypto';
import { gzip } from 'node:zlib';
import type { Trace } from '../../core/analytics/trace-record';
import { createDeadline } from '../../core/stream/deadline';
import { genAiSpan } from '../../core/telemetry/gen-ai-span';
import { formatTraceparent, idFromBytes, parseTraceparent, type SpanContext } from '../../core/telemetry/trace-context';
import { nodeHttp } from '../node-client/node-http';
import { causeText, logger } from '../platform/logger';
import type { OtelSettings } from './otel-settings';
import type { EndedSpan } from './otlp-encoding';

/** A request's span, open from its arrival to its trace. */
export interface RequestSpan {
  /** The router's span: its trace (the client's, or a new one), its own id, whether it is recorded. */
  readonly context: SpanContext;
  /** The client's span, when it sent a valid `traceparent`. */
  readonly parentSpanId?: string;
  /** What the node is sent as `traceparent`: the router's span. */
  readonly traceparent: string;
}

export interface SpanExportStats {
  /** Spans the endpoint took. */
  readonly exported: number;
  /** Spans dropped: the queue was full, or the endpoint did not take their batch. */
  readonly dropped: number;
  /** Exports that failed (each dropped its batch). */
  readonly failedExports: number;
}

export interface SpanExport {
  /** The span of a request arriving now, a child of `traceparent`'s span when that is valid. */
  open(traceparent: string | undefined): RequestSpan;
  /** Queues the span `trace` ends (a retried attempt's: a child of `span`); never waits. */
  end(span: RequestSpan, trace: Trace): void;
  /** Exports everything queued now; resolves once sent or given up on, never rejects. */
  flush(): Promise<void>;
  stats(): SpanExportStats;
}

/** How an export reaches the endpoint; tests pass their own. Resolves with the HTTP status. */
export type SpanPost = (
  url: string,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array,
  timeoutMs: number,
) => Promise<number>;

export interface SpanExportOptions {
  /** This instance's id among the router's: the resource's `service.instance.id`. */
  readonly instanceId: string;
  readonly post?: SpanPost;
  /** Encodes a batch; default OpenTelemetry's protobuf encoder (./otlp-encoding). */
  readonly encode?: (spans: readonly EndedSpan[]) => Uint8Array;
}

export function createSpanExport(settings: OtelSettings, options: SpanExportOptions): SpanExport {
  const resource = { 'service.instance.id': options.instanceId, ...settings.resource };
  const post = options.post ?? postWithUndici;
  const headers: Record<string, string> = {
    ...settings.headers,
    'content-type': 'application/x-protobuf',
  };
  if (settings.compression === 'gzip') headers['content-encoding'] = 'gzip';
  const encode =
    options.encode ??
    ((spans: readonly EndedSpan[]) => {
      // Required here, on the first export: a process that exports nothing never loads it.
      const { encodeSpans }: typeof import('./otlp-encoding') = require('./otlp-encoding');
      return encodeSpans(spans, resource);
    });
  const stats = { exported: 0, dropped: 0, failedExports: 0 };
  let queue: EndedSpan[] = [];
  let timer: NodeJS.Timeout | undefined;
  let exporting: Promise<void> | undefined;

  const drop = (count: number, why: string, cause?: unknown): void => {
    stats.dropped += count;
    logger().limited('span-export', 'warn', `spans dropped: ${why}`, {
      dropped: stats.dropped,
      endpoint: settings.url,
      ...(cause === undefined ? {} : { cause: causeText(cause) }),
    });
  };

  /** Sends one batch; a failure drops it. */
  const exportBatch = async (batch: readonly EndedSpan[]): Promise<void> => {
    try {
      const encoded = encode(batch);
      const body = settings.compression === 'gzip' ? await gzipped(encoded) : encoded;
      const status = await post(settings.url, headers, body, settings.timeoutMs);
      if (status >= 200 && status < 300) {
        stats.exported += batch.length;
        return;
      }
      stats.failedExports += 1;
      drop(batch.length, `the endpoint answered ${status}`);
    } catch (error) {
      stats.failedExports += 1;
      drop(batch.length, 'the export failed', error);
    }
  };

  /** Exports batch after batch until the queue is empty (or, `whole` false, holds less than a batch). */
  function run(whole: boolean): Promise<void> {
    if (exporting !== undefined) return exporting.then(() => (whole && queue.length > 0 ? run(true) : undefined));
    const loop = async () => {
      while (queue.length > 0 && (whole || queue.length >= settings.maxExportBatchSize)) {
        const batch = queue.slice(0, settings.maxExportBatchSize);
        queue = queue.slice(batch.length);
        await exportBatch(batch);
      }
    };
    exporting = loop().finally(() => {
      exporting = undefined;
      // What arrived during the export and is not a full batch waits for the schedule, not for the next span.
      if (queue.length > 0) schedule();
    });
    return exporting;
  }

  /** Sends a full batch after this turn, else starts the schedule's timer unless it runs. */
  function schedule(): void {
    if (queue.length >= settings.maxExportBatchSize) {
      // A full batch goes now, after this turn's work: never inside the request that filled it.
      setImmediate(() => void run(false));
      return;
    }
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      void run(true);
    }, settings.scheduleDelayMs);
    timer.unref();
  }

  return {
    open(traceparent) {
      const parent = parseTraceparent(traceparent);
      const ids = randomBytes(24);
      const traceId = parent?.traceId ?? idFromBytes(ids.subarray(0, 16));
      const context: SpanContext = {
        traceId,
        spanId: idFromBytes(ids.subarray(16)),
        sampled: sampled(settings, traceId, parent),
      };
      const span = { context, traceparent: formatTraceparent(context) };
      return parent === undefined ? span : { ...span, parentSpanId: parent.spanId };
    },
    end(span, trace) {
      if (!span.context.sampled) return;
      const mapped = genAiSpan(trace);
      if (mapped === undefined) return;
      if (queue.length >= settings.maxQueueSize) {
        drop(1, `the queue holds ${settings.maxQueueSize} (OTEL_BSP_MAX_QUEUE_SIZE)`);
        return;
      }
      const attempt = trace.status === 'retried';
      queue.push({
        ...mapped,
        traceId: span.context.traceId,
        spanId: attempt ? idFromBytes(randomBytes(8)) : span.context.spanId,
        ...(attempt
          ? { parentSpanId: span.context.spanId, parentRemote: false }
          : span.parentSpanId === undefined
            ? {}
            : { parentSpanId: span.parentSpanId, parentRemote: true }),
      });
      schedule();
    },
    async flush() {
      await run(true).catch(() => undefined);
      // Nothing left for the schedule: its timer would only find an empty queue.
      if (timer !== undefined && queue.length === 0) {
        clearTimeout(timer);
        timer = undefined;
      }
    },
    stats: () => ({ ...stats }),
  };
}

/** The sampler's decision for a span of `traceId` whose parent is `parent` (the specification's samplers). */
export function sampled(
  settings: Pick<OtelSettings, 'sampler' | 'samplerRatio'>,
  traceId: string,
  parent: SpanContext | undefined,
): boolean {
  const { sampler } = settings;
  if (parent !== undefined && sampler.startsWith('parentbased_')) return parent.sampled;
  if (sampler === 'always_off' || sampler === 'parentbased_always_off') return false;
  if (sampler === 'traceidratio' || sampler === 'parentbased_traceidratio') {
    // The trace id's last 56 bits as a fraction: the same trace is decided alike wherever it is decided.
    return Number.parseInt(traceId.slice(-14), 16) / 2 ** 56 < settings.samplerRatio;
  }
  return true;
}

function gzipped(body: Uint8Array): Promise<Uint8Array> {
  return new Promise((resolve, reject) => gzip(body, (error, result) => (error ? reject(error) : resolve(result))));
}

/** POSTs through the router's one undici Agent, bounded by `timeoutMs`; the reply's body is read and dropped. */
async function postWithUndici(
  url: string,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array,
  timeoutMs: number,
): Promise<number> {
  const deadline = createDeadline(timeoutMs);
  try {
    const response = await nodeHttp().request(url, {
      method: 'POST',
      headers,
      body,
      signal: deadline.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    await response.body.dump();
    return response.statusCode;
  } finally {
    deadline.clear();
  }
}
