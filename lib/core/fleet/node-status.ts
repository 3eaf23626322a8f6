/**
 * Node liveness (ARCHITECTURE.md §8.4): a draining node is offline at once; a node silent for longer than
 * `offlineAfterMs` is offline, longer than `degradedAfterMs` degraded (still routable), else online.
 * It comes back on its next good poll or heartbeat simply because `lastSeenAt` moves. Pure: the clock
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
