/**
 * Ended spans encoded as an OTLP `ExportTraceServiceRequest` in protobuf (issue 44 item 2) by
 * OpenTelemetry's own serializer (`@opentelemetry/otlp-transformer`'s `ProtobufTraceSerializer`). The
 * serializer takes the SDK's span records; this hands it ours in that shape, so the router needs
 * neither the SDK's tracer nor its processors (ARCHITECTURE.md §3.14). The package is required on the
 * first export (./span-export), never at a cold start: in a Lambda bundle it is a vendor bundle of its own
 * beside the handler, the trace serializer alone (scripts/vendor-otlp-transformer.cjs), loaded only where
 * spans are exported.
 */

import type { GenAiSpan } from '../../core/telemetry/gen-ai-span';

type Transformer = Pick<typeof import('@opentelemetry/otlp-transformer'), 'ProtobufTraceSerializer'>;
type SdkSpan = Parameters<Transformer['ProtobufTraceSerializer']['serializeRequest']>[0][number];

/** A span that ended, with its place in the trace. */
export interface EndedSpan extends GenAiSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** The parent's span id: the client's (remote) or, for a retried attempt, the request's. */
  readonly parentSpanId?: string;
  readonly parentRemote?: boolean;
}

/** The SDK's `SpanKind.CLIENT` (the OTLP encoding adds one) and status codes. */
const SPAN_KIND_CLIENT = 2;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;
const SAMPLED = 1;

/** This instrumentation, as the OTLP scope names it. */
const SCOPE = { name: 'fleet-router' };

/** `spans` encoded under one resource. */
export function encodeSpans(
  spans: readonly EndedSpan[],
  resourceAttributes: Readonly<Record<string, string>>,
): Uint8Array {
  const { ProtobufTraceSerializer }: Transformer = require('@opentelemetry/otlp-transformer');
  // One resource object for the batch: the serializer groups spans by its identity.
  const resource = { attributes: resourceAttributes } as unknown as SdkSpan['resource'];
  const records = spans.map((span) => sdkRecord(span, resource));
  return ProtobufTraceSerializer.serializeRequest(records) ?? new Uint8Array();
}

/** Epoch ms as the SDK's `[seconds, nanoseconds]`. */
function hrTime(ms: number): [number, number] {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

function sdkRecord(span: EndedSpan, resource: SdkSpan['resource']): SdkSpan {
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: SAMPLED };
  const startTime = hrTime(span.startMs);
  const endTime = hrTime(Math.max(span.endMs, span.startMs));
  const record = {
    name: span.name,
    kind: SPAN_KIND_CLIENT,
    spanContext: () => context,
    parentSpanContext:
      span.parentSpanId === undefined
        ? undefined
        : {
            traceId: span.traceId,
            spanId: span.parentSpanId,
            traceFlags: SAMPLED,
            isRemote: span.parentRemote === true,
          },
    startTime,
    endTime,
    duration: hrTime(Math.max(span.endMs - span.startMs, 0)),
    status: span.error === undefined ? { code: STATUS_UNSET } : { code: STATUS_ERROR, message: span.error },
    attributes: span.attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
  return record as unknown as SdkSpan;
}
