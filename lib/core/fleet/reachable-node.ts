/**
 * The node a client named by `node_id` (`/api/pull`, `/api/delete`, `/api/copy`): 404 when the fleet has
 * no such node, 503 when it cannot take work now — saying whether it is draining (back only when its
 * operator says so) or offline (back by itself on its next good poll or heartbeat).
 */
import { NotFoundError, ServiceUnavailableError } from '../errors';
import type { FleetSnapshot, NodeView } from './node';

export function reachableNode(snapshot: FleetSnapshot, nodeId: string): NodeView {
  const node = snapshot.byId.get(nodeId);
  if (node === undefined) throw new NotFoundError(`node '${nodeId}' not found`, 'node_not_found');
  // A draining node also reads as offline: say which, since only one of them comes back by itself.
  if (node.draining) {
    throw new ServiceUnavailableError(`node '${nodeId}' is draining`, { retryAfterSeconds: 30, retryable: false });
  }
  if (node.status === 'offline') {
    throw new ServiceUnavailableError(`node '${nodeId}' is offline`, { retryAfterSeconds: 5 });
  }
  return node;
}
