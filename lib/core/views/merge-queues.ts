/**
 * The queue view of `/fleet/status` and `/fleet/queue`: the router's own queues, added up across every
 * live instance (pending waiters and requests in flight per node and model), over what nodes report for
 * the models they hold hot. Where the router queues a node:model, its count wins: a node's own
 * `requests_active` would count the same requests twice.
 */
import type { QueueEntry } from '../fleet/queue-entry';

export function mergeQueues(reported: readonly QueueEntry[], routed: readonly QueueEntry[]): QueueEntry[] {
  const merged = new Map<string, QueueEntry>();
  for (const entry of reported) merged.set(`${entry.nodeId}:${entry.model}`, entry);
  const summed = new Map<string, QueueEntry>();
  for (const entry of routed) {
    const key = `${entry.nodeId}:${entry.model}`;
    const previous = summed.get(key);
    summed.set(
      key,
      previous === undefined
        ? {
            nodeId: entry.nodeId,
            model: entry.model,
            pending: entry.pending,
            inFlight: entry.inFlight,
            concurrency: entry.concurrency,
          }
        : {
            ...previous,
            pending: previous.pending + entry.pending,
            inFlight: previous.inFlight + entry.inFlight,
            concurrency: Math.max(previous.concurrency, entry.concurrency),
          },
    );
  }
  for (const [key, entry] of summed) merged.set(key, entry);
  return [...merged.values()].sort((a, b) =>
    a.nodeId === b.nodeId ? a.model.localeCompare(b.model) : a.nodeId.localeCompare(b.nodeId),
  );
}
