import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { createLogger, type Logger, useLogger } from '../../../../lib/services/platform/logger';
import { parseOtelSettings } from '../../../../lib/services/telemetry/otel-settings';
import type { EndedSpan } from '../../../../lib/services/telemetry/otlp-encoding';
import { createSpanExport, type SpanPost, sampled } from '../../../../lib/services/telemetry/span-export';

/** The warnings the export writes, kept here instead of printed: a fresh logger (and rate limit) per test. */
const logged: string[] = [];
let previousLogger: Logger | undefined;
beforeAll(() => {
  previousLogger = useLogger(undefined);
});
beforeEach(() => {
  logged.length = 0;
  useLogger(createLogger({ write: (_level, line) => logged.push(line) }));
});
afterAll(() => {
  useLogger(previousLogger);
});

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

function settings(env: Record<string, string> = {}) {
  const parsed = parseOtelSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', ...env });
  if (parsed === undefined) throw new Error('no settings');
  return parsed;
}

function trace(fields: Partial<Trace> = {}): Trace {
  return {
    requestId: 'req-1',
    startedAt: 1_764_115_200_000,
    style: 'ollama-chat',
    status: 'completed',
    requestedModel: 'llama3.2',
    latencyMs: 20,
    retries: 0,
    tags: [],
    clientIp: '10.0.0.9',
    ...fields,
  };
}

/** An export whose batches are kept as the spans themselves, posted to `post` (default: taken). */
function recording(env: Record<string, string> = {}, post: SpanPost = async () => 200) {
  const batches: EndedSpan[][] = [];
  const posted: { url: string; headers: Readonly<Record<string, string>> }[] = [];
  const spans = createSpanExport(settings(env), {
    instanceId: 'instance-1',
    encode: (batch) => {
      batches.push([...batch]);
      return new Uint8Array([batch.length]);
    },
    post: (url, headers, body, timeoutMs) => {
      posted.push({ url, headers });
      return post(url, headers, body, timeoutMs);
    },
  });
  return { spans, batches, posted };
}

describe('createSpanExport', () => {
  it("opens a request's span under the client's traceparent and names it in the traceparent for the node", () => {
    const { spans } = recording();

    const span = spans.open(`00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`);

    expect(span.context.traceId).toBe(CLIENT_TRACE);
    expect(span.parentSpanId).toBe(CLIENT_SPAN);
    expect(span.context.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span.context.spanId).not.toBe(CLIENT_SPAN);
    expect(span.traceparent).toBe(`00-${CLIENT_TRACE}-${span.context.spanId}-01`);
  });

  it('starts a trace of its own when the client sent no valid traceparent', () => {
    const { spans } = recording();

    const span = spans.open('not a traceparent');

    expect(span.context.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.context.traceId).not.toBe(CLIENT_TRACE);
    expect(span.parentSpanId).toBeUndefined();
    expect(span.context.sampled).toBe(true);
  });

  it("exports the request's span with its parent, and a retried attempt as the request span's child", async () => {
    const { spans, batches, posted } = recording();
    const span = spans.open(`00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`);

    spans.end(span, trace({ requestId: 'req-1:attempt-1', status: 'retried', servedModel: 'llama3.2:3b' }));
    spans.end(span, trace({ servedModel: 'llama3.2:3b' }));
    await spans.flush();

    expect(batches).toHaveLength(1);
    const [attempt, request] = batches[0] ?? [];
    expect(request).toMatchObject({
      name: 'chat llama3.2',
      traceId: CLIENT_TRACE,
      spanId: span.context.spanId,
      parentSpanId: CLIENT_SPAN,
      parentRemote: true,
    });
    expect(attempt).toMatchObject({ traceId: CLIENT_TRACE, parentSpanId: span.context.spanId, parentRemote: false });
    expect(attempt?.spanId).not.toBe(span.context.spanId);
    expect(posted[0]?.url).toBe('http://collector:4318/v1/traces');
    expect(posted[0]?.headers['content-type']).toBe('application/x-protobuf');
    expect(spans.stats()).toEqual({ exported: 2, dropped: 0, failedExports: 0 });
  });

  it('exports nothing of a trace the client did not sample, and passes its decision on', async () => {
    const { spans, batches } = recording();
    const span = spans.open(`00-${CLIENT_TRACE}-${CLIENT_SPAN}-00`);

    spans.end(span, trace());
    await spans.flush();

    expect(span.traceparent.endsWith('-00')).toBe(true);
    expect(batches).toEqual([]);
  });

  it('sends full batches of OTEL_BSP_MAX_EXPORT_BATCH_SIZE without waiting for the schedule', async () => {
    const { spans, batches } = recording({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2', OTEL_BSP_SCHEDULE_DELAY: '600000' });

    for (let index = 0; index < 5; index += 1) spans.end(spans.open(undefined), trace());
    await new Promise((resolve) => setImmediate(resolve));
    await spans.flush();

    expect(batches.map((batch) => batch.length)).toEqual([2, 2, 1]);
  });

  it('drops and counts the spans beyond OTEL_BSP_MAX_QUEUE_SIZE', async () => {
    const { spans, batches } = recording({ OTEL_BSP_MAX_QUEUE_SIZE: '3', OTEL_BSP_SCHEDULE_DELAY: '600000' });

    for (let index = 0; index < 5; index += 1) spans.end(spans.open(undefined), trace());
    await spans.flush();

    expect(batches.flat()).toHaveLength(3);
    expect(spans.stats()).toEqual({ exported: 3, dropped: 2, failedExports: 0 });
  });

  it('drops and counts a batch the endpoint refused or never answered, and its flush still resolves', async () => {
    const refusing = recording({}, async () => 503);
    refusing.spans.end(refusing.spans.open(undefined), trace());
    await refusing.spans.flush();

    const unreachable = recording({}, async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:4318');
    });
    unreachable.spans.end(unreachable.spans.open(undefined), trace());
    unreachable.spans.end(unreachable.spans.open(undefined), trace());
    await unreachable.spans.flush();

    expect(refusing.spans.stats()).toEqual({ exported: 0, dropped: 1, failedExports: 1 });
    expect(unreachable.spans.stats()).toEqual({ exported: 0, dropped: 2, failedExports: 1 });
    expect(logged.some((line) => line.includes('spans dropped: the endpoint answered 503'))).toBe(true);
  });

  it('ends a span without waiting for an export that hangs', async () => {
    const { spans, posted } = recording({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1' }, () => new Promise<number>(() => {}));

    spans.end(spans.open(undefined), trace());
    spans.end(spans.open(undefined), trace());
    await new Promise((resolve) => setImmediate(resolve));

    // The first export hangs; the second span waits in the queue, and ending it returned at once.
    expect(posted).toHaveLength(1);
  });

  it('makes no span of a model pull', async () => {
    const { spans, batches } = recording();

    spans.end(spans.open(undefined), trace({ style: 'pull' }));
    await spans.flush();

    expect(batches).toEqual([]);
  });
});

describe('sampled', () => {
  const half = { sampler: 'parentbased_traceidratio', samplerRatio: 0.5 } as const;

  it("follows the parent's decision under a parent-based sampler, and the ratio of the trace id without one", () => {
    expect(sampled(half, CLIENT_TRACE, { traceId: CLIENT_TRACE, spanId: CLIENT_SPAN, sampled: true })).toBe(true);
    expect(sampled(half, CLIENT_TRACE, { traceId: CLIENT_TRACE, spanId: CLIENT_SPAN, sampled: false })).toBe(false);
    expect(sampled(half, `${'f'.repeat(18)}${'0'.repeat(14)}`, undefined)).toBe(true);
    expect(sampled(half, `${'0'.repeat(18)}${'f'.repeat(14)}`, undefined)).toBe(false);
  });

  it('samples everything or nothing under always_on and always_off, whatever the parent said', () => {
    const parent = { traceId: CLIENT_TRACE, spanId: CLIENT_SPAN, sampled: false };

    expect(sampled({ sampler: 'always_on', samplerRatio: 1 }, CLIENT_TRACE, parent)).toBe(true);
    expect(sampled({ sampler: 'always_off', samplerRatio: 1 }, CLIENT_TRACE, undefined)).toBe(false);
  });
});
