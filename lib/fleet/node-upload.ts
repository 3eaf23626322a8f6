/**
 * Sends a body that is not JSON to a node — a `multipart/form-data` upload to a sidecar (contract §3,
 * speech-to-text `POST /transcribe`) — and resolves when the node's response headers arrive, like
 * `openNodeStream` does for JSON (the dispatcher's "first byte"): connection failures and the
 * first-byte time-out reject with a retryable `UpstreamError`; the body is handed over unread.
 */
import type { Dispatcher } from 'undici';
import { UpstreamError } from '../errors';
import { describeNetworkError, nodeHttp } from './node-http';
import type { NodeReply, NodeStreamOptions } from './node-stream';

export interface NodeUpload {
  readonly body: Buffer;
  /** The body's content type, boundary included. */
  readonly contentType: string;
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

export async function openNodeUpload(
  baseUrl: string,
  path: string,
  upload: NodeUpload,
  options: NodeStreamOptions = {},
): Promise<NodeReply> {
  const { agent } = nodeHttp();
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path}`);
  let response: Dispatcher.ResponseData;
  try {
    response = await agent.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { 'content-type': upload.contentType },
      body: upload.body,
      headersTimeout: options.firstByteTimeoutMs ?? 300_000,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    throw new UpstreamError(`${url.href}: ${describeNetworkError(error)}`, undefined, {
      cause: error,
      code: 'node_unreachable',
    });
  }
  const stream = response.body;
  // An unread body destroyed by `cancel` errors; this keeps that from crashing the process.
  stream.on('error', () => undefined);
  let cancelled = false;
  return {
    status: response.statusCode,
    headers: flattenHeaders(response.headers),
    body: stream,
    cancel() {
      if (cancelled) return;
      cancelled = true;
      stream.destroy();
    },
  };
}
