/**
 * What the dispatcher needs from the node client (issue: routing item 3): send one attempt and resolve
 * when the node's response headers arrive (the first byte), reject on a connection error or a connect /
 * first-byte time-out. `NodeReply` is the shape `lib/fleet/node-stream` returns, so its
 * `openNodeStream` plugs in behind a small adapter that picks the path and body. Pure types.
 */
import type { ModelPlacement, NodeView } from '../fleet/node';
import type { NodeReply } from '../fleet/node-reply';
import type { AbortSource } from '../stream/abort-source';

export type { NodeReply } from '../fleet/node-reply';

export interface NodeAttempt {
  readonly node: NodeView;
  readonly placement: ModelPlacement;
  /** The model's name on this node: send this one (it may carry the `:latest` the client left out). */
  readonly model: string;
}

/** Aborting `signal` (the client went away) must abort the request to the node. */
export type NodeTransport = (attempt: NodeAttempt, signal: AbortSource) => Promise<NodeReply>;
