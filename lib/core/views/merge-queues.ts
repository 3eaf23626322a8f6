/**
 * The queue view of `/fleet/status` and `/fleet/queue`: the router's own queues, added up across every
 * live instance (pending waiters and requests in flight per node and model), over what nodes report for
 * the models they hold hot. Where the router queues a node:model, its count wins: a node's own
 * `requests_active` would count the same requests twice.
 */
import type { QueueEntry, WaitingBreakdown } from '../fleet/queue-entry';

/** Two instances' waiting breakdowns of one queue, added up. */
export function addWaiting(
  a: WaitingBreakdown | undefined,
  b: WaitingBreakdown | undefined,
): WaitingBreakdown | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const byApp: Record<string, number> = { ...a.byApp };
  for (const [app, count] of Object.entries(b.byApp)) byApp[app] = (byApp[app] ?? 0) + count;
  return {
    byPriority: {
      high: a.byPriority.high + b.byPriority.high,
      normal: a.byPriority.normal + b.byPriority.normal,
      low: a.byPriority.low + b.byPriority.low,
    },
    byApp,
  };
}

export function mergeQueues(reported: readonly QueueEntry[], routed: readonly QueueEntry[]): QueueEntry[] {
  const merged = new Map<string, QueueEntry>();
  for (const entry of reported) merged.set(`${entry.nodeId}:${entry.model}`, entry);
  const summed = new Map<string, QueueEntry>();
  for (const entry of routed) {
    const key = `${entry.nodeId}:${entry.model}`;
    const previous = summed.get(key);
    const next: QueueEntry =
      previous === undefined
        ? {
            nodeId: entry.nodeId,
            model: entry.model,
            pending: entry.pending,
            inFlight: entry.inFlight,
            concurrency: entry.concurrency,
          }
        : {
            nodeId: previous.nodeId,
            model: previous.model,
            pending: previous.pending + entry.pending,
            inFlight: previous.inFlight + entry.inFlight,
            concurrency: Math.max(previous.concurrency, entry.concurrency),
          };
    const waiting = addWaiting(previous?.waiting, entry.waiting);
    summed.set(key, waiting === undefined ? next : { ...next, waiting });
  }
  for (const [key, entry] of summed) merged.set(key, entry);
  return [...merged.values()].sort((a, b) =>
    a.nodeId === b.nodeId ? a.model.localeCompare(b.model) : a.nodeId.localeCompare(b.nodeId),
  );
}
