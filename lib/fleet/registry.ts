/**
 * The fleet registry: the one owner of node state. Heartbeats and polls are turned into `NodeRecord`s
 * (pure, from-heartbeat / from-poll) and written to the table, which every instance shares
 * (DESIGN decision 6); routing reads an in-memory `FleetSnapshot` never older than `snapshotMaxAgeMs`
 * (decision 5). While requests flow it is read again in the background from half that age, so the hot
 * path does not wait for the table; the first request after a quiet spell, a cold start or a thaw waits
 * for one read rather than route on nodes that may have drained or gone since.
 */
import type { FleetConfig } from '../config';
import { ServiceUnavailableError } from '../errors';
import type { FullHeartbeat } from '../wire/heartbeat';
import type { DescribeModels } from './describe-models';
import { drainNode, nodeFromHeartbeat, resolveAgentUrl } from './from-heartbeat';
import { admitDrain, admitHeartbeat, type HeartbeatAdmission, OPEN_ADMISSION } from './heartbeat-admission';
import type { FleetSnapshot, NodeModel, NodeRecord } from './node';
import { nodeStatus } from './node-status';
import { buildSnapshot } from './snapshot';
import { undescribedModels, withDescriptions } from './with-descriptions';

/** Where node records live; `lib/store/node-repository` on the table. */
export interface NodeStore {
  put(record: NodeRecord): Promise<void>;
  get(id: string): Promise<NodeRecord | undefined>;
  list(): Promise<NodeRecord[]>;
}

export type RegistryConfig = Pick<FleetConfig, 'degradedAfterMs' | 'offlineAfterMs' | 'snapshotMaxAgeMs'>;

export interface FleetRegistryOptions {
  readonly store: NodeStore;
  readonly config: RegistryConfig;
  readonly clock?: () => number;
  readonly log?: (line: string) => void;
  /** Asks a node's runtime about models a heartbeat named without metadata; absent = keep the inferred guess. */
  readonly describe?: DescribeModels;
  /** Which heartbeats may change which nodes; absent = an open router with no listed nodes. */
  readonly admission?: HeartbeatAdmission;
}

export interface HeartbeatReply {
  readonly status: 'ok' | 'draining';
  readonly node_id: string;
  readonly node_status: string;
}

export interface FleetRegistry {
  /** The current snapshot: never older than `snapshotMaxAgeMs` (read again first when it would be). */
  snapshot(): Promise<FleetSnapshot>;
  /**
   * `snapshot()` when it needs no wait for the table (the routing path while requests flow), else
   * undefined: past half its bound it is served while the next one is read in the background.
   */
  ready(): FleetSnapshot | undefined;
  /** Re-reads every node from the table now. */
  refresh(): Promise<FleetSnapshot>;
  /** Throws ConflictError when the heartbeat may not change the node (heartbeat-admission). */
  recordHeartbeat(payload: FullHeartbeat, peerIp?: string): Promise<HeartbeatReply>;
  /** Throws ConflictError when the drain may not take the node out (heartbeat-admission). */
  recordDrain(nodeId: string, peerIp?: string): Promise<HeartbeatReply>;
  /** Stores a record produced elsewhere (the poller) and shows it in this instance's snapshot. */
  save(record: NodeRecord): Promise<void>;
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
  const log = options.log ?? ((line: string) => console.error(line));
  const { config } = options;
  const admission = options.admission ?? OPEN_ADMISSION;
  const thresholds = { degradedAfterMs: config.degradedAfterMs, offlineAfterMs: config.offlineAfterMs };
  let records = new Map<string, NodeRecord>();
  let built: FleetSnapshot | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<FleetSnapshot> | undefined;
  /** A record changed here since the snapshot was built (rebuilt lazily: heartbeats outnumber reads). */
  let dirty = false;

  const rebuild = (): FleetSnapshot => {
    dirty = false;
    built = buildSnapshot([...records.values()], clock(), thresholds);
    return built;
  };

  const refresh = (): Promise<FleetSnapshot> => {
    inFlight ??= options.store
      .list()
      .then((list) => {
        const next = new Map(list.map((record) => [record.id, record]));
        // A record saved here while the read was under way may be newer than what the read saw.
        for (const [id, local] of records) {
          const stored = next.get(id);
          if (stored === undefined || local.lastSeenAt > stored.lastSeenAt) next.set(id, local);
        }
        records = next;
        readAt = clock();
        return rebuild();
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  /** A cold read that fails leaves the router with nothing to route by: that is a 503, not a crash. */
  const refreshOrUnavailable = async (): Promise<FleetSnapshot> => {
    try {
      return await refresh();
    } catch (error) {
      if (built !== undefined) return built;
      throw new ServiceUnavailableError('fleet state is unavailable: the table did not answer', { cause: error });
    }
  };

  const ready = (): FleetSnapshot | undefined => {
    const age = clock() - readAt;
    // Older than its bound (a quiet spell, a thawed container): read the table before routing on it.
    if (built === undefined || age > config.snapshotMaxAgeMs) return undefined;
    if (age > config.snapshotMaxAgeMs / 2) {
      // Read ahead while traffic flows, so the next requests never wait for the table.
      refresh().catch((error: unknown) => log(`fleet snapshot refresh failed: ${String(error)}`));
    }
    // Liveness moves with the clock even when no record changed.
    return dirty || clock() - built.takenAt > config.snapshotMaxAgeMs ? rebuild() : built;
  };

  const snapshot = async (): Promise<FleetSnapshot> => ready() ?? refreshOrUnavailable();

  const save = async (record: NodeRecord): Promise<void> => {
    await options.store.put(record);
    records.set(record.id, record);
    dirty = true;
  };

  const known = async (id: string) => records.get(id) ?? (await options.store.get(id));
  // Heartbeats for one node may reach several instances: diff against the table, not this instance's copy.
  const stored = async (id: string) => (await options.store.get(id)) ?? records.get(id);

  const describe = async (record: NodeRecord): Promise<NodeRecord> => {
    const names = undescribedModels(record);
    if (names.length === 0 || options.describe === undefined) return record;
    return withDescriptions(record, await options.describe(record.url, names));
  };

  return {
    snapshot,
    ready,
    refresh,
    save,
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
