/**
 * A trace cut to fit its page (./trace-pages) and its usage keys (issue 19 item 6: no trace lost to
 * size). The edge already refuses long names in JSON bodies (lib/services/http/request-bounds), but a trace must
 * not depend on every way in having checked: an 800 KB model name made a page the table refused (the
 * trace lost) and a usage key over the 1,024-byte sort-key limit (the counts lost). So every free-text
 * field is cut here — names and ids by UTF-8 bytes, so that `node#model` always fits a sort key — and
 * a trace is never dropped for its size: with these cuts its JSON stays under `MAX_TRACE_BYTES`. Pure.
 */

import type { Trace } from '../../core/analytics/trace-record';
import { merged } from '../../core/merged';
import { MAX_TAG_CHARS, MAX_TAGS } from '../../core/scoring/tags';

/** A model name (requested, served, fallback), in UTF-8 bytes: the edge's bound. */
export const MAX_TRACE_NAME_BYTES = 512;
/** A node id, in UTF-8 bytes; with a model name and `#` it stays within a 1,024-byte sort key. */
export const MAX_TRACE_NODE_ID_BYTES = 256;
/** Short router-made fields a client can still influence (request id, client address, finish reason). */
const MAX_SHORT_FIELD_CHARS = 200;
/** A node's error text can be long; the trace keeps its start. */
export const MAX_TRACE_ERROR_CHARS = 2000;
/** What the cuts add up to, with room for the numbers and the score breakdown: far below a 256 KB page. */
export const MAX_TRACE_BYTES = 64 * 1024;

/** `trace` itself when it is within every bound (almost always), else a copy with its long fields cut. */
export function boundedTrace(trace: Trace): Trace {
  if (withinBounds(trace)) return trace;
  const cut: Record<string, unknown> = {
    requestId: cutChars(trace.requestId, MAX_SHORT_FIELD_CHARS),
    requestedModel: cutUtf8(trace.requestedModel, MAX_TRACE_NAME_BYTES),
    clientIp: cutChars(trace.clientIp, MAX_SHORT_FIELD_CHARS),
    tags: trace.tags.slice(0, MAX_TAGS).map((tag) => cutChars(tag, MAX_TAG_CHARS)),
  };
  if (trace.servedModel !== undefined) cut['servedModel'] = cutUtf8(trace.servedModel, MAX_TRACE_NAME_BYTES);
  if (trace.fallbackModel !== undefined) cut['fallbackModel'] = cutUtf8(trace.fallbackModel, MAX_TRACE_NAME_BYTES);
  if (trace.nodeId !== undefined) cut['nodeId'] = cutUtf8(trace.nodeId, MAX_TRACE_NODE_ID_BYTES);
  if (trace.finishReason !== undefined) cut['finishReason'] = cutChars(trace.finishReason, MAX_SHORT_FIELD_CHARS);
  if (trace.error !== undefined && trace.error.length > MAX_TRACE_ERROR_CHARS) {
    cut['error'] = `${cutChars(trace.error, MAX_TRACE_ERROR_CHARS)}…`;
  }
  return merged<Trace>(trace, cut as Partial<Trace>);
}

/** Cheap: lengths only, a UTF-16 unit being at most 3 bytes of UTF-8. */
function withinBounds(trace: Trace): boolean {
  return (
    trace.requestId.length <= MAX_SHORT_FIELD_CHARS &&
    trace.requestedModel.length * 3 <= MAX_TRACE_NAME_BYTES &&
    (trace.servedModel === undefined || trace.servedModel.length * 3 <= MAX_TRACE_NAME_BYTES) &&
    (trace.fallbackModel === undefined || trace.fallbackModel.length * 3 <= MAX_TRACE_NAME_BYTES) &&
    (trace.nodeId === undefined || trace.nodeId.length * 3 <= MAX_TRACE_NODE_ID_BYTES) &&
    trace.clientIp.length <= MAX_SHORT_FIELD_CHARS &&
    (trace.finishReason === undefined || trace.finishReason.length <= MAX_SHORT_FIELD_CHARS) &&
    (trace.error === undefined || trace.error.length <= MAX_TRACE_ERROR_CHARS) &&
    trace.tags.length <= MAX_TAGS &&
    trace.tags.every((tag) => tag.length <= MAX_TAG_CHARS)
  );
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** `text` cut to `max` UTF-16 units, never between the halves of a surrogate pair. */
function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max);
}

/** `text` cut to at most `maxBytes` of UTF-8, at a character boundary. */
export function cutUtf8(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    const pair = isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(index + 1));
    const size = pair ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    index += pair ? 2 : 1;
  }
  return text.slice(0, index);
}
