/** Small helpers routes use to answer: JSON, plain text, NDJSON headers. */
import type { ResponseSink } from './response-sink';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const NDJSON_TYPE = 'application/x-ndjson';
export const SSE_TYPE = 'text/event-stream; charset=utf-8';

/**
 * Header maps merged left to right (later wins). On the request path, use this rather than an object
 * literal that starts with a spread (`{ ...a, ...b }`, `{ ...a, key }`): V8 clones the first source's
 * hidden class into one of its own, and every property added after it then makes a fresh hidden class
 * for that one object — several per request, allocated in old space, and each property read of such an
 * object goes megamorphic. `Object.assign` onto `{}`, or a literal that starts with a plain property,
 * reuses the shared ones.
 */
export function mergeHeaders(...sources: (Readonly<Record<string, string>> | undefined)[]): Record<string, string> {
  return Object.assign({}, ...sources);
}

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
