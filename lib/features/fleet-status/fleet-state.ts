/**
 * The fleet as `/fleet/status` and `/fleet/queue` show it (spec §4.6): the registry's snapshot and the
 * queues — the router's own, from every instance, over what the nodes report — read at one instant.
 */
import type { FleetSnapshot, SnapshotFreshness } from '../../core/fleet/node';
import type { QueueEntry, QueueState } from '../../core/fleet/queue-entry';
import { mergeQueues } from '../../core/views/merge-queues';
import { queuesFromSnapshot } from '../../core/views/queues-from-snapshot';
import type { FleetRegistry } from '../../services/registry/registry';

/** What reading the fleet's state takes: the registry's snapshot and every instance's queues. */
export interface FleetStateDeps {
  readonly registry: Pick<FleetRegistry, 'snapshot' | 'freshness'>;
  /** Every instance's queues: this instance's exact, the others' as they last published them. */
  queueView(now: number): Promise<QueueState[]>;
}

export interface FleetState {
  readonly snapshot: FleetSnapshot;
  readonly queues: readonly QueueEntry[];
  readonly now: number;
  readonly freshness: SnapshotFreshness;
}

export async function readFleetState(deps: FleetStateDeps, now: number): Promise<FleetState> {
  const [snapshot, routed] = await Promise.all([deps.registry.snapshot(), deps.queueView(now)]);
  return {
    snapshot,
    queues: mergeQueues(queuesFromSnapshot(snapshot), routed),
    now,
    freshness: deps.registry.freshness(),
  };
}
