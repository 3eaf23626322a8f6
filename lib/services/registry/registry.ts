/**
 * The fleet registry: the one owner of node state. Heartbeats and polls are turned into `NodeRecord`s
 * (pure, from-heartbeat / from-poll) and written to the table, which every instance shares
 * (ARCHITECTURE.md §3.6); routing reads an in-memory `FleetSnapshot` (§3.5). While requests flow it
 * is read again in the background from half of `snapshotMaxAgeMs`, so the hot path does not wait for the
 * table. Past that bound (a quiet spell, a thaw) a request waits for the fresh read at most
 * `snapshotWaitMs` — enough for a table that answers, so a node drained meanwhile gets no work — and
 * then routes on the snapshot it has: routing never waits on a hung table (issue 19 item 5), and once a
 * read failed it does not wait at all until one succeeds. Only the very first snapshot must be read.
 */

import { ServiceUnavailableError } from '../../core/errors';
import { drainNode, nodeFromHeartbeat, resolveAgentUrl } from '../../core/fleet/from-heartbeat';
import type { FleetSnapshot, NodeModel, NodeRecord, SnapshotFreshness } from '../../core/fleet/node';
import { nodeStatus } from '../../core/fleet/node-status';
import { buildSnapshot } from '../../core/fleet/snapshot';
import { undescribedModels, withDescriptions } from '../../core/fleet/with-descriptions';
import type { FullHeartbeat } from '../../core/wire/heartbeat';
import type { DescribeModels } from '../node-client/describe-models';
import type { FleetConfig } from '../platform/config';
import { admitDrain, admitHeartbeat, type HeartbeatAdmission, OPEN_ADMISSION } from './heartbeat-admission';

/** Where node records live; `lib/services/store/node-repository` on the table. */
export interface NodeStore {
  put(record: NodeRecord): Promise<void>;
  get(id: string): Promise<NodeRecord | undefined>;
  list(): Promise<NodeRecord[]>;
}

export type RegistryConfig = Pick<FleetConfig, 'degradedAfterMs' | 'offlineAfterMs' | 'snapshotMaxAgeMs'> &
  Partial<Pick<FleetConfig, 'snapshotWaitMs'>>;

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
  /**
   * The current snapshot. Past `snapshotMaxAgeMs` it waits at most `snapshotWaitMs` for the fresh read,
   * then serves the last one; only the first read of all is waited for in full (a 503 if it fails).
   */
  snapshot(): Promise<FleetSnapshot>;
  /**
   * `snapshot()` when it needs no wait for the table (the routing path while requests flow), else
   * undefined: past half its bound it is served while the next one is read in the background.
   */
  ready(): FleetSnapshot | undefined;
  freshness(): SnapshotFreshness;
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
  /** When the last read failed, if it did: background reads pause for a bound after a failure. */
  let failedAt: number | undefined;
  /** A record changed here since the snapshot was built (rebuilt lazily: heartbeats outnumber reads). */
  let dirty = false;
  /**
   * Nodes saved here while the table read under way was in flight: the read may predate the save, and a
   * save that changes models but not `lastSeenAt` (a delete, copy or pull recorded at once) must win.
   */
  let savedDuringRead: Set<string> | undefined;

  const rebuild = (): FleetSnapshot => {
    dirty = false;
    built = buildSnapshot([...records.values()], clock(), thresholds);
    return built;
  };

  const refresh = (): Promise<FleetSnapshot> => {
    if (inFlight !== undefined) return inFlight;
    const saved = new Set<string>();
    savedDuringRead = saved;
    inFlight = options.store
      .list()
      .then((list) => {
        const next = new Map(list.map((record) => [record.id, record]));
        // A record saved here while the read was under way may be newer than what the read saw.
        for (const [id, local] of records) {
          const stored = next.get(id);
          if (stored === undefined || local.lastSeenAt > stored.lastSeenAt || saved.has(id)) next.set(id, local);
        }
        records = next;
        readAt = clock();
        failedAt = undefined;
        return rebuild();
      })
      .catch((error: unknown) => {
        failedAt = clock();
        throw error;
      })
      .finally(() => {
        inFlight = undefined;
        if (savedDuringRead === saved) savedDuringRead = undefined;
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

  const current = (): FleetSnapshot | undefined => {
    if (built === undefined) return undefined;
    // Liveness moves with the clock even when no record changed.
    return dirty || clock() - built.takenAt > config.snapshotMaxAgeMs ? rebuild() : built;
  };

  /** One read at a time, and none for a bound after a failed one (a table that is down is not hammered). */
  const readAhead = (): void => {
    if (inFlight !== undefined || (failedAt !== undefined && clock() - failedAt < config.snapshotMaxAgeMs)) return;
    refresh().catch((error: unknown) => log(`fleet snapshot refresh failed: ${String(error)}`));
  };

  const ready = (): FleetSnapshot | undefined => {
    const age = clock() - readAt;
    if (built === undefined) return undefined;
    if (age > config.snapshotMaxAgeMs / 2) readAhead();
    // Past its bound with a table that answers: snapshot() gives the read a moment to land first.
    if (age > config.snapshotMaxAgeMs && failedAt === undefined && inFlight !== undefined) return undefined;
    return current();
  };

  const snapshot = async (): Promise<FleetSnapshot> => {
    const now = ready();
    if (now !== undefined) return now;
    if (built === undefined) return refreshOrUnavailable();
    if (inFlight !== undefined) await settledWithin(inFlight, config.snapshotWaitMs ?? 200);
    return current() ?? refreshOrUnavailable();
  };

  const freshness = (): SnapshotFreshness => ({
    ageMs: built === undefined ? undefined : Math.max(0, clock() - readAt),
    refreshFailed: failedAt !== undefined,
  });

  // This instance's view first: what it just saw of a node stands while the table does not answer.
  const save = async (record: NodeRecord): Promise<void> => {
    records.set(record.id, record);
    savedDuringRead?.add(record.id);
    dirty = true;
    await options.store.put(record);
  };

  const known = async (id: string) => records.get(id) ?? (await options.store.get(id));
  // Heartbeats for one node may reach several instances: diff against the table, not this instance's copy.
  // While the table does not answer, this instance's copy is all there is.
  const stored = async (id: string) => (await options.store.get(id).catch(() => undefined)) ?? records.get(id);

  const describe = async (record: NodeRecord): Promise<NodeRecord> => {
    const names = undescribedModels(record);
    if (names.length === 0 || options.describe === undefined) return record;
    return withDescriptions(record, await options.describe(record.url, names));
  };

  return {
    snapshot,
    ready,
    freshness,
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

/** Waits for `work` to settle, at most `ms`; its outcome is the caller's to read elsewhere. */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work.then(noop, noop), elapsed]);
  } finally {
    clearTimeout(timer);
  }
}

function noop(): void {}
