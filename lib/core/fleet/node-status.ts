/**
 * Node liveness (ARCHITECTURE.md §8.4): a draining node is offline at once; a node silent for longer than
 * `offlineAfterMs` is offline, longer than `degradedAfterMs` degraded (still routable), else online.
 * It comes back on its next good poll or heartbeat simply because `lastSeenAt` moves. A listed node that
 * never answered is stored with `lastSeenAt: 0`, the poller's "never" (`silentForMs`). Pure: the clock
 * comes in as `now`.
 */
import type { NodeRecord, NodeStatus } from './node';

export interface LivenessThresholds {
  readonly degradedAfterMs: number;
  readonly offlineAfterMs: number;
}

export function nodeStatus(
  record: Pick<NodeRecord, 'draining' | 'lastSeenAt'>,
  now: number,
  thresholds: LivenessThresholds,
): NodeStatus {
  if (record.draining) return 'offline';
  const silentMs = now - record.lastSeenAt;
  if (silentMs > thresholds.offlineAfterMs) return 'offline';
  if (silentMs > thresholds.degradedAfterMs) return 'degraded';
  return 'online';
}

/** How long the node has been silent, ms; undefined when it never answered (`lastSeenAt: 0`), not 56 years. */
export function silentForMs(record: Pick<NodeRecord, 'lastSeenAt'>, now: number): number | undefined {
  return record.lastSeenAt > 0 ? Math.max(0, now - record.lastSeenAt) : undefined;
}
