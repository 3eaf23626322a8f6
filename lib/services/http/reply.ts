/** Small helpers routes use to answer: JSON, plain text, NDJSON headers. */
import type { ResponseSink } from './response-sink';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const NDJSON_TYPE = 'application/x-ndjson';
export const SSE_TYPE = 'text/event-stream; charset=utf-8';

export async function sendJson(
  response: ResponseSink,
  body: unknown,
  statusCode = 200,
  headers: Readonly<Record<string, string>> = {},
): Promise<void> {
  response.start({ statusCode, headers: { 'content-type': JSON_TYPE, ...headers } });
  await response.end(JSON.stringify(body));
}

export async function sendText(
  response: ResponseSink,
  text: string,
  statusCode = 200,
  headers: Readonly<Record<string, string>> = {},
): Promise<void> {
  response.start({ statusCode, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } });
  await response.end(text);
}
