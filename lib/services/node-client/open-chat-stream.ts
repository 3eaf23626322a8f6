/**
 * The dispatcher's transport for chat: a streaming POST to the node, aborted with the client. The
 * first-byte deadline is `FLEET_FIRST_BYTE_TIMEOUT_MS` (config `firstByteTimeoutMs`): generous, since
 * loading a large model can take minutes, but a node that stays silent that long is ejected from
 * routing (../routing/outlier-ejection), so it costs one request that wait, not every one.
 */

import type { AbortSource } from '../../core/stream/abort-source';
import type { NodeReply } from './node-reply';
import { openNodeStream } from './node-stream';

export function openChatStream(
  url: string,
  path: string,
  body: unknown,
  signal: AbortSource,
  firstByteTimeoutMs: number,
  traceparent?: string,
): Promise<NodeReply> {
  return openNodeStream(url, path, body, { signal, firstByteTimeoutMs, traceparent });
}
