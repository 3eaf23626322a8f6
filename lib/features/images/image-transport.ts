/**
 * How one image attempt reaches its node (ARCHITECTURE.md §8.3): a sidecar model goes to the node agent's image
 * sidecar, `POST <sidecar>/api/generate-image`; an Ollama-native image model to that node's Ollama,
 * `POST /api/generate` not streamed. The transport also remembers what went wrong on each node — a
 * connection error, or a 5xx whose message it reads before the dispatcher moves on — so a request that
 * no node could serve can say which node failed and why (502, anchor §4.3), and when the attempt that
 * served was sent, for `X-Generation-Time`. One per request.
 */
import { UpstreamError } from '../../core/errors';
import type { ImageJob } from '../../core/protocols/images/image-job';
import { describeNodeError } from '../../core/protocols/images/node-image-reply';
import { toOllamaImageRequest, toSidecarImageRequest } from '../../core/protocols/images/to-image-node-request';
import type { NodeAttempt, NodeReply, NodeTransport } from '../../services/dispatch/transport';
import { openNodeStream, readNodeBody } from '../../services/node-client/node-stream';

export interface NodeFailure {
  readonly nodeId: string;
  readonly reason: string;
}

export interface ImageTransport {
  readonly send: NodeTransport;
  /** The attempts that failed on their node, in order. */
  readonly failures: readonly NodeFailure[];
  /** Epoch ms the latest attempt was sent. */
  sentAt(): number;
}

/** The most of a node's error reply read for its message. */
const ERROR_BODY_BYTES = 64 * 1024;

interface Target {
  readonly baseUrl: string;
  readonly path: string;
  readonly body: unknown;
}

function targetOf(job: ImageJob, attempt: NodeAttempt): Target {
  const { node, placement, model } = attempt;
  if (placement.backend === 'ollama') {
    return { baseUrl: node.url, path: '/api/generate', body: toOllamaImageRequest(job, model) };
  }
  const sidecar = placement.backend === 'image' ? node.sidecars.image : undefined;
  if (sidecar === undefined) throw new UpstreamError(`node ${node.id} has no image sidecar for ${model}`);
  return { baseUrl: sidecar.url, path: '/api/generate-image', body: toSidecarImageRequest(job, model) };
}

async function* once(body: Buffer): AsyncIterable<Uint8Array> {
  yield body;
}

/** The reply with its body already read: the dispatcher sees the same status and headers. */
function replayed(reply: NodeReply, body: Buffer): NodeReply {
  return { status: reply.status, headers: reply.headers, body: once(body), cancel: () => reply.cancel() };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createImageTransport(job: ImageJob): ImageTransport {
  const failures: NodeFailure[] = [];
  let sentAt = 0;
  const send: NodeTransport = async (attempt, signal, traceparent) => {
    let reply: NodeReply;
    try {
      const target = targetOf(job, attempt);
      sentAt = Date.now();
      reply = await openNodeStream(target.baseUrl, target.path, target.body, { signal, traceparent });
    } catch (error) {
      if (!signal.aborted) failures.push({ nodeId: attempt.node.id, reason: messageOf(error) });
      throw error;
    }
    if (reply.status < 500) return reply;
    const body = await readNodeBody(reply, ERROR_BODY_BYTES).catch(() => Buffer.alloc(0));
    failures.push({ nodeId: attempt.node.id, reason: describeNodeError(reply.status, body) });
    return replayed(reply, body);
  };
  return { send, failures, sentAt: () => sentAt };
}
