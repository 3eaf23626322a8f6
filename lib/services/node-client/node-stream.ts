/**
 * Opens a streaming request to a node (`POST /api/chat`, `/api/generate`, a sidecar's JSON route or
 * upload) and resolves when the node's response headers arrive — the "first byte" the dispatcher
 * decides retries on. Connection failures and a first-byte time-out reject (retryable); the body is
 * handed over unread, as an async iterable of chunks that the relay consumes at the client's pace, and
 * `cancel()` frees the node's connection at once when the client goes away.
 */
import { UpstreamError } from '../../core/errors';
import { nodeUnreachable } from '../../core/fleet/node-failure';
import type { AbortSource } from '../../core/stream/abort-source';
import { nodeHttp } from './node-http';
import { type NodeReply, StreamedNodeReply } from './node-reply';

export type { NodeReply } from './node-reply';

export interface NodeStreamOptions {
  readonly signal?: AbortSource;
  /** How long the node may take to answer with headers (model loads are slow). */
  readonly firstByteTimeoutMs?: number;
  /** The router's span for the node, where spans are exported: sent as the `traceparent` header. */
  readonly traceparent?: string | undefined;
}

const splitUrls = new Map<string, { readonly origin: string; readonly prefix: string }>();

/** `http://10.0.0.5:11434/ollama` → origin `http://10.0.0.5:11434`, prefix `/ollama` (listed nodes may have one). */
function splitBaseUrl(baseUrl: string): { readonly origin: string; readonly prefix: string } {
  let split = splitUrls.get(baseUrl);
  if (split === undefined) {
    const url = new URL(baseUrl);
    split = { origin: url.origin, prefix: url.pathname.replace(/\/+$/, '') };
    if (splitUrls.size >= 1024) splitUrls.clear();
    splitUrls.set(baseUrl, split);
  }
  return split;
}

/** A body that is not JSON (a sidecar's `multipart/form-data` upload), with its content type. */
export interface NodePayload {
  readonly body: string | Buffer;
  /** The body's content type, a multipart boundary included. */
  readonly contentType: string;
}

/** POSTs `body` as JSON: how the router talks to Ollama and the sidecars' JSON routes. */
export function openNodeStream(
  baseUrl: string,
  path: string,
  body: unknown,
  options: NodeStreamOptions = {},
): Promise<NodeReply> {
  return openNodeRequest(baseUrl, path, { body: JSON.stringify(body), contentType: 'application/json' }, options);
}

/** POSTs `payload` as it is (an upload to a sidecar, ARCHITECTURE.md §8.3). */
export function openNodeRequest(
  baseUrl: string,
  path: string,
  payload: NodePayload,
  options: NodeStreamOptions = {},
): Promise<NodeReply> {
  return new Promise((resolve, reject) => {
    const firstByteTimeoutMs = options.firstByteTimeoutMs ?? 300_000;
    // Words for the client ("the node refused the connection"); the URL and code stay in `detail`.
    const unreachable = (error: unknown) => nodeUnreachable(error, `${baseUrl}${path}`, firstByteTimeoutMs);
    let target: { readonly origin: string; readonly prefix: string };
    try {
      // The node's origin and path prefix are parsed once per node; a bad URL is the node's failure.
      target = splitBaseUrl(baseUrl);
    } catch (error) {
      reject(unreachable(error));
      return;
    }
    const reply = new StreamedNodeReply((error, started) => {
      if (error === undefined) resolve(started);
      else reject(unreachable(error));
    }, options.signal);
    nodeHttp().agent.dispatch(
      {
        origin: target.origin,
        path: `${target.prefix}${path}`,
        method: 'POST',
        headers:
          options.traceparent === undefined
            ? { 'content-type': payload.contentType }
            : { 'content-type': payload.contentType, traceparent: options.traceparent },
        body: payload.body,
        headersTimeout: firstByteTimeoutMs,
      },
      reply,
    );
  });
}

/** Reads a whole (small) reply body, for errors and non-streaming answers. */
export function readNodeBody(reply: NodeReply, limitBytes = 8 * 1024 * 1024): Promise<Buffer> {
  return reply.readAll !== undefined ? reply.readAll(limitBytes) : readChunks(reply, limitBytes);
}

async function readChunks(reply: NodeReply, limitBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of reply.body) {
    size += chunk.length;
    if (size > limitBytes) {
      reply.cancel();
      throw new UpstreamError(`the node's reply is larger than ${limitBytes} bytes`);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
