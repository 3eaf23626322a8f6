/**
 * W3C Trace Context (issue 44 item 2): the `traceparent` header a client may send, read into the trace and
 * span it names, and written for the span the router passes on to a node —
 * `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`. A header that is not valid is ignored, as the
 * recommendation says: the request starts a trace of its own. Ids come in as parameters, so this is pure.
 */

/** One span's place in a trace, as `traceparent` carries it. */
export interface SpanContext {
  /** 32 lower-case hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lower-case hex digits, not all zero. */
  readonly spanId: string;
  /** The `sampled` flag: the caller records this trace. */
  readonly sampled: boolean;
}

const HEX = /^[0-9a-f]+$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/**
 * The span a `traceparent` names, or undefined when it names none validly. Version `00` is exactly 55
 * characters; a later version may carry more after a dash, which is ignored; `ff` is never valid.
 */
export function parseTraceparent(header: string | undefined): SpanContext | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (text.length < 55 || text.length > 512) return undefined;
  const version = text.slice(0, 2);
  if (!HEX.test(version) || version === 'ff') return undefined;
  if (version === '00' ? text.length !== 55 : text.length > 55 && text[55] !== '-') return undefined;
  if (text[2] !== '-' || text[35] !== '-' || text[52] !== '-') return undefined;
  const traceId = text.slice(3, 35);
  const spanId = text.slice(36, 52);
  const flags = text.slice(53, 55);
  if (!HEX.test(traceId) || !HEX.test(spanId) || !HEX.test(flags)) return undefined;
  if (traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** The `traceparent` naming `context`, version `00`. */
export function formatTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.sampled ? '01' : '00'}`;
}

/** `bytes` as lower-case hex; a random id of all zeros (one chance in 2^64 or more) is made non-zero. */
export function idFromBytes(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}
