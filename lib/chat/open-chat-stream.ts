/** The dispatcher's transport for chat: a streaming POST to the node, aborted with the client. */
import { openNodeStream } from '../fleet/node-stream';
import type { NodeReply } from '../routing/transport';
import type { AbortSource } from '../stream/abort-source';

/** How long a node may take to start answering: loading a large model can take minutes. */
const FIRST_BYTE_TIMEOUT_MS = 300_000;

export function openChatStream(url: string, path: string, body: unknown, signal: AbortSource): Promise<NodeReply> {
  return openNodeStream(url, path, body, { signal, firstByteTimeoutMs: FIRST_BYTE_TIMEOUT_MS });
}
