/**
 * Reads what a `/dashboard/events` stream sends (./fleet-event), each source as often as it is worth:
 * the registry's snapshot on every check (the registry reads the table at most once a second), every
 * instance's queues at most once per `queueReadMs` (one Query), the health score and the hourly rollups
 * at most once per `slowReadMs` (the health service caches; the rollups change by the request). A source
 * that fails keeps its last value; the health score and the activity are left out or null until one is read.
 * Each node's ejection is the instance's as of the snapshot: its own and those other instances published
 * (issue 45), each with the instance that saw it.
 */
import { emptyRollup } from '../../core/analytics/rollup';
import type { QueueState } from '../../core/fleet/queue-entry';
import { toFleetStatus } from '../../core/views/fleet-status';
import { mergeQueues } from '../../core/views/merge-queues';
import { queuesFromSnapshot } from '../../core/views/queues-from-snapshot';
import type { RollupReader } from '../../services/analytics/rollup-reader';
import { ejectionStatesAsOf } from '../../services/dispatch/evict-ejected';
import type { OutlierEjection } from '../../services/dispatch/outlier-ejection';
import type { QueueManager } from '../../services/dispatch/queue-manager';
import type { FleetRegistry } from '../../services/registry/registry';
import { type ActivityHour, activityHour, type FleetEvent, fleetEvent, fleetFingerprint } from './fleet-event';

export interface EventsDeps {
  readonly registry: Pick<FleetRegistry, 'snapshot' | 'freshness'>;
  /** Every instance's queues: this instance's exact, the others' as they last published them. */
  queueView(now: number): Promise<QueueState[]>;
  readonly rollups: Pick<RollupReader, 'fleetHours'>;
  /** The fleet's health score (the health service); undefined when there is none. */
  health(): Promise<{ readonly score: number } | undefined>;
  /** Which nodes are out of routing for failing, and the queues an ejection moves on; none shown when absent. */
  readonly routing?: { readonly ejection: OutlierEjection; readonly queues: QueueManager };
}

export interface EventReaderOptions {
  readonly clock?: () => number;
  readonly queueReadMs?: number;
  readonly slowReadMs?: number;
  readonly log?: (line: string) => void;
}

export interface FleetReading {
  readonly event: FleetEvent;
  readonly fingerprint: string;
}

const HOUR_MS = 3_600_000;

/** A value read again once it is older than `maxAgeMs`; a failed read keeps the last one. */
function every<T>(maxAgeMs: number, clock: () => number, read: () => Promise<T>, log: (line: string) => void) {
  let value: T | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  return async (): Promise<T | undefined> => {
    if (clock() - readAt < maxAgeMs) return value;
    readAt = clock();
    try {
      value = await read();
    } catch (error) {
      log(`dashboard events: a read failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    return value;
  };
}

export function createEventReader(deps: EventsDeps, options: EventReaderOptions = {}) {
  const clock = options.clock ?? Date.now;
  const log = options.log ?? ((line: string) => console.warn(line));
  const slowReadMs = options.slowReadMs ?? 10_000;
  const queues = every(options.queueReadMs ?? 1000, clock, () => deps.queueView(clock()), log);
  const health = every(slowReadMs, clock, () => deps.health(), log);
  const activity = every(
    slowReadMs,
    clock,
    async (): Promise<ActivityHour[]> => {
      const now = clock();
      const currentHour = Math.floor(now / HOUR_MS) * HOUR_MS;
      const rows = await deps.rollups.fleetHours({ startMs: currentHour - HOUR_MS, endMs: now + 1 });
      // An hour with no rollup item is an hour nobody sent a request in: zeros, read, not guessed.
      return [currentHour - HOUR_MS, currentHour].map((startMs) =>
        activityHour(startMs, rows.find((row) => row.startMs === startMs)?.rollup ?? emptyRollup()),
      );
    },
    log,
  );
  return {
    async read(): Promise<FleetReading> {
      const [snapshot, routed, score, hours] = await Promise.all([
        deps.registry.snapshot(),
        queues(),
        health(),
        activity(),
      ]);
      const now = clock();
      const { routing } = deps;
      const ejections =
        routing === undefined ? [] : ejectionStatesAsOf(routing.ejection, snapshot, routing.queues, now);
      const status = toFleetStatus(
        snapshot,
        mergeQueues(queuesFromSnapshot(snapshot), routed ?? []),
        now,
        ejections,
        deps.registry.freshness(),
      );
      return { event: fleetEvent(status, score, hours ?? null), fingerprint: fleetFingerprint(status) };
    },
  };
}
