/**
 * The queue view until the router's own per node:model queues exist: what the nodes themselves report.
 * One entry per (online or degraded node, loaded model), nothing pending (the router holds no queue
 * yet), in flight as the node counts it, concurrency = the node's OLLAMA_NUM_PARALLEL. Pure.
 */
import type { FleetSnapshot } from '../fleet/node';
import type { QueueEntry } from '../fleet/queue-entry';
import { isPlaceable } from '../fleet/snapshot';

export function queuesFromSnapshot(snapshot: FleetSnapshot): QueueEntry[] {
  const queues: QueueEntry[] = [];
  for (const node of snapshot.nodes) {
    if (!isPlaceable(node)) continue;
    for (const loaded of node.loaded) {
      queues.push({
        nodeId: node.id,
        model: loaded.name,
        pending: 0,
        inFlight: loaded.requestsActive ?? 0,
        concurrency: node.numParallel,
      });
    }
  }
  return queues;
}
