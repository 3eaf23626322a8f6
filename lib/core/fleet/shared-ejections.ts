/**
 * Ejections shared through the table (issue 45; ARCHITECTURE.md §3.6): which of the ejections other
 * instances published still stand, as of a snapshot's node records and its clock. An instance that
 * ejects a node after a refused connect, a missed first byte or a run of 5xx writes the ejection once
 * onto the node's item (lib/services/store/published-ejections); every instance reads it back with the
 * fleet snapshot it reads anyway and honours it as its own (lib/services/dispatch/outlier-ejection).
 *
 * One rule decides, for the local ejections and the published ones alike, when a node's answer ends an
 * ejection before its time: a good poll or heartbeat recorded after the ejection (the record carries no
 * `lastErrorAt` and a `lastSeenAt` past the ejection's `at`) ends one caused by a refused connect, a
 * failed poll, a 5xx or a cut connection. A missed first byte waits out its time: a node whose
 * generation hangs may still answer the cheap poll routes and send its heartbeats. Pure.
 */
import type { Ejection, FailureCause } from './ejection';
import type { NodeRecord } from './node';

/**
 * Ejections a good poll of a listed node (or a heartbeat) ends: the router reached it and it answered
 * again (as Envoy's `successful_active_health_check_uneject_host`, on by default).
 */
export const RESTORED_BY_POLL: ReadonlySet<FailureCause> = new Set(['connect', 'poll', 'server-error', 'transport']);

/** Whether the node's record says it answered since the ejection, in a way that ends it. */
export function endedByRecord(
  ejection: Pick<Ejection, 'at' | 'cause'>,
  record: Pick<NodeRecord, 'lastSeenAt' | 'lastErrorAt'> | undefined,
): boolean {
  return (
    record !== undefined &&
    RESTORED_BY_POLL.has(ejection.cause) &&
    record.lastErrorAt === undefined &&
    record.lastSeenAt > ejection.at
  );
}

/**
 * The published ejections in force at `now`: not over, and not ended by their node's record. One of a
 * node the snapshot does not know is dropped (the node is gone; nothing routes to it anyway).
 */
export function standingEjections(
  published: readonly Ejection[],
  byId: ReadonlyMap<string, Pick<NodeRecord, 'lastSeenAt' | 'lastErrorAt'>>,
  now: number,
): Ejection[] {
  if (published.length === 0) return [];
  return published.filter((ejection) => {
    const record = byId.get(ejection.nodeId);
    return record !== undefined && now < ejection.until && !endedByRecord(ejection, record);
  });
}
