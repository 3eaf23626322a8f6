/**
 * The fleet registry: the one owner of node state. Heartbeats and polls are turned into `NodeRecord`s
 * (pure, from-heartbeat / from-poll) and written to the table, which every instance shares
 * (ARCHITECTURE.md §3.6); routing reads the in-memory `FleetSnapshot` kept by ./snapshot-keeper (§3.5:
 * never waiting for the table while the process is alive), where this instance's own saves show at once.
 * It also publishes the ejections this instance decides (issue 45), and a record it saves removes the
 * published ejections of the node that are over or that the record's good poll or heartbeat ended.
 */

import type { Ejection } from '../../core/fleet/ejection';
import { drainNode, nodeFromHeartbeat, resolveAgentUrl } from '../../core/fleet/from-heartbeat';
import type { FleetSnapshot, NodeModel, NodeRecord, SnapshotFreshness } from '../../core/fleet/node';
import { nodeStatus } from '../../core/fleet/node-status';
import { endedByRecord } from '../../core/fleet/shared-ejections';
import { undescribedModels, withDescriptions } from '../../core/fleet/with-descriptions';
import type { FullHeartbeat } from '../../core/wire/heartbeat';
import type { DescribeModels } from '../node-client/describe-models';
import { admitDrain, admitHeartbeat, type HeartbeatAdmission, OPEN_ADMISSION } from './heartbeat-admission';
import { createSnapshotKeeper, type FleetListing, type SnapshotConfig } from './snapshot-keeper';

/** Where node records live; `lib/services/store/node-repository` on the table. */
export interface NodeStore {
  /** Writes the record, removing the published ejections of the `ended` services in the same write. */
  put(record: NodeRecord, ended?: readonly Ejection[]): Promise<void>;
  get(id: string): Promise<NodeRecord | undefined>;
  list(): Promise<NodeRecord[]>;
  /** The records and the published ejections in one read; a store without it publishes none. */
  listFleet?(): Promise<FleetListing>;
  /** Writes one ejection onto the node's item; false when the node has none. */
  publishEjection?(ejection: Ejection): Promise<boolean>;
}

export interface FleetRegistryOptions {
  readonly store: NodeStore;
  readonly config: SnapshotConfig;
  readonly clock?: () => number;
  readonly log?: (line: string) => void;
  /** Asks a node's runtime about models a heartbeat named without metadata; absent = keep the inferred guess. */
  readonly describe?: DescribeModels;
  /** Which heartbeats may change which nodes; absent = an open router with no listed nodes. */
  readonly admission?: HeartbeatAdmission;
  /** Whether the process's background re-reads run on time (./snapshot-keeper); absent = never. */
  readonly awake?: () => boolean;
}

export interface HeartbeatReply {
  readonly status: 'ok' | 'draining';
  readonly node_id: string;
  readonly node_status: string;
}

export interface FleetRegistry {
  /** The current snapshot, waited for only on a cold start or after a freeze (./snapshot-keeper). */
  snapshot(): Promise<FleetSnapshot>;
  /** The snapshot when it needs no wait for the table (nearly always; ./snapshot-keeper), else undefined. */
  ready(): FleetSnapshot | undefined;
  freshness(): SnapshotFreshness;
  /** Re-reads every node from the table now. */
  refresh(): Promise<FleetSnapshot>;
  /** Starts a background read unless one is under way (the refresh ticker's work); never throws. */
  readAhead(): void;
  /** Throws ConflictError when the heartbeat may not change the node (heartbeat-admission). */
  recordHeartbeat(payload: FullHeartbeat, peerIp?: string): Promise<HeartbeatReply>;
  /** Throws ConflictError when the drain may not take the node out (heartbeat-admission). */
  recordDrain(nodeId: string, peerIp?: string): Promise<HeartbeatReply>;
  /** Stores a record produced elsewhere (the poller) and shows it in this instance's snapshot. */
  save(record: NodeRecord): Promise<void>;
  /**
   * Publishes an ejection this instance decided, for every instance to honour on its next snapshot read
   * (one write); false when the node has no item or the store publishes nothing.
   */
  publishEjection(ejection: Ejection): Promise<boolean>;
  /** The stored record of a node as this instance last saw it. */
  record(id: string): Promise<NodeRecord | undefined>;
  /**
   * Adds (or replaces, by name) one on-disk model in a node's stored record, so a model pull that just
   * finished shows before the next poll or heartbeat. False when the node is unknown.
   */
  recordModel(nodeId: string, model: NodeModel): Promise<boolean>;
}

export function createFleetRegistry(options: FleetRegistryOptions): FleetRegistry {
  const clock = options.clock ?? Date.now;
  const { config } = options;
  const admission = options.admission ?? OPEN_ADMISSION;
  const thresholds = { degradedAfterMs: config.degradedAfterMs, offlineAfterMs: config.offlineAfterMs };
  const { store } = options;
  const snapshots = createSnapshotKeeper({
    list: () =>
      store.listFleet !== undefined ? store.listFleet() : store.list().then((records) => ({ records, ejections: [] })),
    config,
    clock,
    log: options.log,
    awake: options.awake,
  });

  // This instance's view first: what it just saw of a node stands while the table does not answer.
  // The node's published ejections this record ends (its answer, lib/core/fleet/shared-ejections) or that
  // are over go in the same write: clearing costs no write of its own.
  const ended = (record: NodeRecord): Ejection[] => {
    const now = clock();
    return snapshots
      .published()
      .filter(
        (ejection) => ejection.nodeId === record.id && (now >= ejection.until || endedByRecord(ejection, record)),
      );
  };
  const save = async (record: NodeRecord): Promise<void> => {
    const over = ended(record);
    const written = over.length > 0 ? store.put(record, over) : store.put(record);
    snapshots.keep(record, written);
    await written;
  };

  const known = async (id: string) => snapshots.known(id) ?? (await options.store.get(id));
  // Heartbeats for one node may reach several instances: diff against the table, not this instance's copy.
  // While the table does not answer, this instance's copy is all there is.
  const stored = async (id: string) => (await options.store.get(id).catch(() => undefined)) ?? snapshots.known(id);

  const describe = async (record: NodeRecord): Promise<NodeRecord> => {
    const names = undescribedModels(record);
    if (names.length === 0 || options.describe === undefined) return record;
    return withDescriptions(record, await options.describe(record.url, names));
  };

  return {
    snapshot: snapshots.snapshot,
    ready: snapshots.ready,
    freshness: snapshots.freshness,
    refresh: snapshots.refresh,
    readAhead: snapshots.readAhead,
    save,
    publishEjection: async (ejection) => (await store.publishEjection?.(ejection)) ?? false,
    record: known,
    async recordHeartbeat(payload, peerIp) {
      const now = clock();
      const previous = await stored(payload.node_id);
      admitHeartbeat(admission, payload.node_id, resolveAgentUrl(payload, peerIp), previous, { now, thresholds });
      const record = await describe(nodeFromHeartbeat(payload, { previous, now, peerIp }));
      await save(record);
      return { status: 'ok', node_id: record.id, node_status: nodeStatus(record, now, thresholds) };
    },
    async recordModel(nodeId, model) {
      const previous = await stored(nodeId);
      if (previous === undefined) return false;
      const models = [...previous.models.filter((entry) => entry.name !== model.name), model];
      models.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      await save({ ...previous, models });
      return true;
    },
    async recordDrain(nodeId, peerIp) {
      const now = clock();
      const previous = await stored(nodeId);
      admitDrain(admission, nodeId, previous, peerIp, { now, thresholds });
      if (previous !== undefined) await save(drainNode(previous, now));
      return { status: 'draining', node_id: nodeId, node_status: 'offline' };
    },
  };
}
