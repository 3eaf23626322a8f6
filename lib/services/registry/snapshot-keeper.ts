/**
 * The fleet as routing reads it (ARCHITECTURE.md §3.5): an in-memory `FleetSnapshot` of the node records
 * in the table, kept by the registry (./registry), which also shows its own saves here at once. Routing
 * never waits for the table while the process is alive. The snapshot is read again in the background —
 * at every tick of the instance's refresh ticker (lib/services/platform/refresh-ticker, half of
 * `snapshotMaxAgeMs`) and whenever it is found older than half its bound — so a drain another instance
 * wrote is routed around within a tick and a read (500 ms and a few, while the table answers).
 *
 * Past its bound a snapshot is still served at once while the process is awake (its ticks fire on
 * time: the table is slow or down, and waiting would not help). Only a process that was frozen — a
 * Lambda container thawed after a quiet spell, whose timers did not run — waits for the read under
 * way, at most `snapshotWaitMs` after that read began, however many requests ask: one read, bounded,
 * so a node drained meanwhile gets no work; then it routes on the snapshot it has. A read begun before
 * the freeze is not that read: it is replaced. Routing never waits on a hung table (issue 19 item 5),
 * and once a read failed it does not wait at all until one succeeds. Only the very first snapshot must
 * be read.
 *
 * The same read brings back the ejections instances published on the nodes' items (issue 45); the
 * snapshot carries those that still stand (lib/core/fleet/shared-ejections).
 */

import { ServiceUnavailableError } from '../../core/errors';
import type { Ejection } from '../../core/fleet/ejection';
import type { FleetSnapshot, NodeRecord, SnapshotFreshness } from '../../core/fleet/node';
import { buildSnapshot } from '../../core/fleet/snapshot';
import type { FleetConfig } from '../platform/config';
import { settledWithin } from '../platform/settled-within';

export type SnapshotConfig = Pick<FleetConfig, 'degradedAfterMs' | 'offlineAfterMs' | 'snapshotMaxAgeMs'> &
  Partial<Pick<FleetConfig, 'snapshotWaitMs'>>;

/** One read of the fleet: every node record, and the ejections published beside them. */
export interface FleetListing {
  readonly records: readonly NodeRecord[];
  readonly ejections: readonly Ejection[];
}

export interface SnapshotKeeperOptions {
  /** Reads every node record, and the ejections published on them, from the table in one read. */
  readonly list: () => Promise<FleetListing>;
  readonly config: SnapshotConfig;
  readonly clock?: (() => number) | undefined;
  readonly log?: ((line: string) => void) | undefined;
  /**
   * Whether this process's background re-reads run on time (lib/services/platform/refresh-ticker
   * `awake`): while they do, a snapshot past its bound is served without waiting. Absent = never (a
   * process without a ticker, e.g. the `fleet` function: each snapshot past its bound waits, bounded).
   */
  readonly awake?: (() => boolean) | undefined;
}

export interface SnapshotKeeper {
  /**
   * The current snapshot. Past `snapshotMaxAgeMs` in a process that was frozen (not `awake`), it waits
   * for the read under way until at most `snapshotWaitMs` after that read began, then serves the last
   * one; only the first read of all is waited for in full (a 503 if it fails).
   */
  snapshot(): Promise<FleetSnapshot>;
  /**
   * `snapshot()` when it needs no wait for the table — always, but before the first read and in a
   * thawed process while its first read may still be waited for — else undefined. Past half its bound
   * it is served while the next one is read in the background.
   */
  ready(): FleetSnapshot | undefined;
  freshness(): SnapshotFreshness;
  /** Re-reads every node from the table now. */
  refresh(): Promise<FleetSnapshot>;
  /**
   * Starts a read of the table in the background, unless none was read yet (nothing to keep fresh: the
   * first is a request's), one is under way, or one failed within the last `snapshotMaxAgeMs`; never
   * throws (a failure is logged). The refresh ticker's work.
   */
  readAhead(): void;
  /**
   * Shows a record this instance is saving in its snapshot at once: it stands while the table does not
   * answer, and over what any read begun before `written` settled says of the node.
   */
  keep(record: NodeRecord, written: Promise<unknown>): void;
  /** This instance's copy of a node's record. */
  known(id: string): NodeRecord | undefined;
  /** The ejections published on the nodes' items as the last good read found them, over or not. */
  published(): readonly Ejection[];
}

export function createSnapshotKeeper(options: SnapshotKeeperOptions): SnapshotKeeper {
  const clock = options.clock ?? Date.now;
  const log = options.log ?? ((line: string) => console.error(line));
  const { config } = options;
  const awake = options.awake ?? (() => false);
  const waitMs = config.snapshotWaitMs ?? 200;
  const thresholds = { degradedAfterMs: config.degradedAfterMs, offlineAfterMs: config.offlineAfterMs };
  let records = new Map<string, NodeRecord>();
  let ejections: readonly Ejection[] = [];
  let built: FleetSnapshot | undefined;
  /** When the read the snapshot comes from began: what it shows is at least that recent. */
  let readAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<FleetSnapshot> | undefined;
  /** When the read in flight began: a thawed process waits for it until `waitMs` after this, at most. */
  let inFlightSince = Number.NEGATIVE_INFINITY;
  /** Whether the read in flight began while the process was awake: a freeze since makes it stale. */
  let inFlightAwake = false;
  /** Reads begun so far; only the latest one's answer is kept. */
  let reads = 0;
  /** When the last read failed, if it did: background reads pause for a bound after a failure. */
  let failedAt: number | undefined;
  /** A record changed here since the snapshot was built (rebuilt lazily: heartbeats outnumber reads). */
  let dirty = false;
  /**
   * Nodes saved here while the table read under way was in flight: the read may predate the save, and a
   * save that changes models but not `lastSeenAt` (a delete, copy or pull recorded at once) must win.
   */
  let savedDuringRead: Set<string> | undefined;
  /** Saves not yet in the table, by node: a read that begins before one lands may not show it either. */
  const writing = new Map<string, number>();

  const rebuild = (): FleetSnapshot => {
    dirty = false;
    built = buildSnapshot([...records.values()], clock(), thresholds, ejections);
    return built;
  };

  /**
   * A read under way that still answers for now. One begun before a freeze (the process was awake then
   * and is not now: a Lambda container frozen mid-read) shows the fleet from before the quiet spell, or
   * never answers on a connection that died meanwhile: a new read replaces it.
   */
  const underWay = (): boolean => inFlight !== undefined && !(inFlightAwake && !awake());

  const refresh = (): Promise<FleetSnapshot> => (inFlight !== undefined && underWay() ? inFlight : read());

  const read = (): Promise<FleetSnapshot> => {
    reads += 1;
    const generation = reads;
    const startedAt = clock();
    // Saves during a read this one replaces may predate this one's answer too.
    const saved = new Set<string>([...(savedDuringRead ?? []), ...writing.keys()]);
    savedDuringRead = saved;
    inFlightSince = startedAt;
    inFlightAwake = awake();
    // A replaced read's answer, good or bad, is dropped: the latest one's stands.
    const latest = (): Promise<FleetSnapshot> | FleetSnapshot => inFlight ?? current() ?? refresh();
    const work = options
      .list()
      .then(
        (listing) => {
          if (generation !== reads) return latest();
          const next = new Map(listing.records.map((record) => [record.id, record]));
          // A record saved here while the read was under way may be newer than what the read saw.
          for (const [id, local] of records) {
            const stored = next.get(id);
            if (stored === undefined || local.lastSeenAt > stored.lastSeenAt || saved.has(id)) next.set(id, local);
          }
          records = next;
          ejections = listing.ejections;
          readAt = startedAt;
          failedAt = undefined;
          return rebuild();
        },
        (error: unknown) => {
          if (generation !== reads) return latest();
          failedAt = clock();
          throw error;
        },
      )
      .finally(() => {
        if (generation !== reads) return;
        inFlight = undefined;
        savedDuringRead = undefined;
      });
    inFlight = work;
    return work;
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
    if (built === undefined || underWay()) return;
    if (failedAt !== undefined && clock() - failedAt < config.snapshotMaxAgeMs) return;
    refresh().catch((error: unknown) => log(`fleet snapshot refresh failed: ${String(error)}`));
  };

  /**
   * Whether a snapshot past its bound may wait for the read under way: only in a process that was frozen
   * (its ticks did not run), with a table that answered last time, and until `waitMs` after that read
   * began — one read's wait per thaw, however many requests ask.
   */
  const mayWait = (now: number): boolean =>
    inFlight !== undefined && failedAt === undefined && now < inFlightSince + waitMs && !awake();

  const ready = (): FleetSnapshot | undefined => {
    if (built === undefined) return undefined;
    const now = clock();
    const age = now - readAt;
    if (age > config.snapshotMaxAgeMs / 2) readAhead();
    // Past its bound after a freeze: snapshot() gives the read a moment to land first.
    if (age > config.snapshotMaxAgeMs && mayWait(now)) return undefined;
    return current();
  };

  const snapshot = async (): Promise<FleetSnapshot> => {
    const at = ready();
    if (at !== undefined) return at;
    if (built === undefined) return refreshOrUnavailable();
    if (inFlight !== undefined) await settledWithin(inFlight, inFlightSince + waitMs - clock());
    return current() ?? refreshOrUnavailable();
  };

  const freshness = (): SnapshotFreshness => ({
    ageMs: built === undefined ? undefined : Math.max(0, clock() - readAt),
    refreshFailed: failedAt !== undefined,
  });

  return {
    snapshot,
    ready,
    freshness,
    refresh,
    readAhead,
    keep(record, written) {
      records.set(record.id, record);
      savedDuringRead?.add(record.id);
      dirty = true;
      writing.set(record.id, (writing.get(record.id) ?? 0) + 1);
      const landed = () => {
        const left = (writing.get(record.id) ?? 1) - 1;
        if (left === 0) writing.delete(record.id);
        else writing.set(record.id, left);
      };
      written.then(landed, landed);
    },
    known: (id) => records.get(id),
    published: () => ejections,
  };
}
