/**
 * One model-admin call to a node's Ollama (`DELETE /api/delete`, `POST /api/copy`): bounded in time, and
 * never thrown — every node's answer (its status and words, or why it could not be reached) comes back
 * as data, because a fleet-wide call reports each node's outcome.
 */
import type { NodeView } from '../../core/fleet/node';
import { nodeErrorText } from '../../core/wire/node-error-text';
import { describeNetworkError, nodeHttp } from '../../services/node-client/node-http';

export interface NodeAdminAnswer {
  readonly nodeId: string;
  /** The node's HTTP status; 0 when it could not be reached or did not answer in time. */
  readonly status: number;
  /** The node's error words (or the network failure) when the status is not 2xx. */
  readonly message?: string;
}

export interface NodeAdminCall {
  readonly method: 'DELETE' | 'POST';
  readonly path: string;
  readonly body: unknown;
  /** Default 30 s (a delete removes blobs from disk). */
  readonly timeoutMs?: number;
}

export async function callNodeAdmin(node: Pick<NodeView, 'id' | 'url'>, call: NodeAdminCall): Promise<NodeAdminAnswer> {
  const { request } = nodeHttp();
  try {
    const response = await request(`${node.url}${call.path}`, {
      method: call.method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call.body),
      signal: AbortSignal.timeout(call.timeoutMs ?? 30_000),
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    if (response.statusCode < 300) return { nodeId: node.id, status: response.statusCode };
    const message = nodeErrorText(body) ?? `the node answered ${response.statusCode}`;
    return { nodeId: node.id, status: response.statusCode, message };
  } catch (error) {
    return { nodeId: node.id, status: 0, message: `unreachable: ${describeNetworkError(error)}` };
  }
}
