/**
 * What the dispatcher needs from the node client (issue: routing item 3): send one attempt and resolve
 * when the node's response headers arrive (the first byte), reject on a connection error or a connect /
 * first-byte time-out. `NodeReply` is the shape `lib/services/node-client/node-stream` returns, so its
 * `openNodeStream` plugs in behind a small adapter that picks the path and body. Pure types.
 */
import type { ModelPlacement, NodeView } from '../../core/fleet/node';
import type { AbortSource } from '../../core/stream/abort-source';
import type { NodeReply } from '../node-client/node-reply';

export type { NodeReply } from '../node-client/node-reply';

export interface NodeAttempt {
  readonly node: NodeView;
  readonly placement: ModelPlacement;
  /** The model's name on this node: send this one (it may carry the `:latest` the client left out). */
  readonly model: string;
}

/**
 * Aborting `signal` (the client went away) must abort the request to the node. `traceparent`, where spans
 * are exported (lib/services/telemetry/span-export), goes to the node as that header: the router's span.
 */
export type NodeTransport = (attempt: NodeAttempt, signal: AbortSource, traceparent?: string) => Promise<NodeReply>;
