/**
 * `GET /fleet/queue` body (HTTP interface §4.6 "queue depths only, meant for client-side backoff";
 * the reference's shape in anchor §6.3): totals over every node:model queue (depth = pending + in
 * flight) and the queues themselves. `nodes_online` counts the nodes that can take work — online and
 * degraded — which is what a client backing off cares about — and the admission rule: how many may wait
 * per node:model beyond its concurrency, and for how long, before a 503. Pure: the clock comes in as `now`.
 */
import type { FleetSnapshot } from '../fleet/node';
import type { QueueEntry, WaitingBreakdown } from '../fleet/queue-entry';
import { isPlaceable } from '../fleet/snapshot';
import { type FleetQueueState, queueStates } from './fleet-status';
import { addWaiting } from './merge-queues';

/** How patient the router is with work a node cannot start yet (FLEET_QUEUE_MAX_PENDING, FLEET_QUEUE_TIMEOUT_MS). */
export interface Admission {
  /** Requests that may wait per node:model beyond its concurrency; one more is a 503 `queue_full`. */
  readonly max_pending: number;
  /** The longest a request waits for a slot; then a 503 `queue_timeout`. */
  readonly timeout_ms: number;
}

export interface FleetQueue {
  readonly queue_depth: number;
  readonly pending: number;
  /** Every queue's waiting requests by priority (issue 43). */
  readonly pending_by_priority: Readonly<Record<'high' | 'normal' | 'low', number>>;
  /** Every queue's waiting requests by application (`key:…`, `tag:…`, `client:…`). */
  readonly pending_by_app: Readonly<Record<string, number>>;
  readonly in_flight: number;
  readonly nodes_online: number;
  readonly queues: Readonly<Record<string, FleetQueueState>>;
  readonly admission: Admission;
  /** Unix seconds. */
  readonly timestamp: number;
}

export function toFleetQueue(
  snapshot: FleetSnapshot,
  queues: readonly QueueEntry[],
  now: number,
  admission: Admission,
): FleetQueue {
  let pending = 0;
  let inFlight = 0;
  let waiting: WaitingBreakdown | undefined;
  for (const queue of queues) {
    pending += queue.pending;
    inFlight += queue.inFlight;
    waiting = addWaiting(waiting, queue.waiting);
  }
  return {
    queue_depth: pending + inFlight,
    pending,
    pending_by_priority: waiting?.byPriority ?? { high: 0, normal: 0, low: 0 },
    pending_by_app: waiting?.byApp ?? {},
    in_flight: inFlight,
    nodes_online: snapshot.nodes.filter(isPlaceable).length,
    queues: queueStates(queues),
    admission,
    timestamp: Math.floor(now / 1000),
  };
}
