/**
 * Small node:http helpers shared by the simulated servers: reading a request body, parsing JSON into a
 * result, and writing JSON, text and Ollama-style `{"error": "..."}` answers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Bodies larger than this are cut off with 413 (the router's own limit is 6 MB). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export type JsonResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string };

/** Reads the whole body; resolves `undefined` when it exceeds the limit or the client goes away. */
export function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined));
    req.on('error', () => resolve(undefined));
  });
}

/** Parses a JSON body the way Ollama's decoder reports problems. */
export function parseJson(body: Buffer): JsonResult {
  if (body.length === 0) return { ok: false, error: 'missing request body' };
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : 'invalid JSON' };
  }
}

/** The path without the query string. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** Writes `body` as JSON (`head`: the headers only, for HEAD requests). */
export function sendJson(res: ServerResponse, status: number, body: unknown, head = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(head ? undefined : text);
}

/** Ollama's error shape: `{"error": "<message>"}`. */
export function sendError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: message });
}

export function sendText(res: ServerResponse, status: number, text: string, head = false): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(head ? undefined : text);
}

/** True once the client has gone away or the response is over. */
export function isGone(res: ServerResponse): boolean {
  return res.destroyed || res.writableEnded;
}

/** The error shape of the node agent's sidecars (FastAPI apps): `{"detail": "<message>"}`. */
export function sendDetail(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { detail: message });
}
