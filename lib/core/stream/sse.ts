/**
 * Server-Sent Events encoding (protocols §9.2–9.3): the only place that writes `data:` and `event:` text.
 * Payloads are JSON on one line (`JSON.stringify` escapes every newline), so each event is one `data:`
 * line and a blank line. OpenAI chat streams use data-only events ending with `SSE_DONE`; Anthropic and
 * Responses streams use named events whose name equals the payload's `type`. Pure.
 */

/** The OpenAI chat terminator, written after the last chunk. */
export const SSE_DONE = 'data: [DONE]\n\n';

/** A comment line: every SSE client ignores it, so it keeps a quiet connection open (never `data: ping`). */
export const SSE_KEEP_ALIVE = ': keep-alive\n\n';

function jsonLine(json: unknown): string {
  const text = JSON.stringify(json);
  if (text === undefined) throw new TypeError('an SSE payload must be a JSON value');
  return text;
}

/** `data: <json>\n\n` — a data-only event (OpenAI chat chunks, in-band errors). */
export function encodeSseData(json: unknown): string {
  return `data: ${jsonLine(json)}\n\n`;
}

/** `event: <name>\ndata: <json>\n\n` — a named event; a name with a line break would split the frame. */
export function encodeSseEvent(name: string, json: unknown): string {
  if (name === '' || /[\r\n]/.test(name)) throw new TypeError(`invalid SSE event name ${JSON.stringify(name)}`);
  return `event: ${name}\ndata: ${jsonLine(json)}\n\n`;
}

/** `retry: <ms>\n\n` — how long a browser's EventSource waits before it reconnects after the stream ends. */
export function encodeSseRetry(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0) throw new TypeError(`invalid SSE retry ${ms}`);
  return `retry: ${ms}\n\n`;
}
