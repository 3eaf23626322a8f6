/**
 * What the health checks read (issue 22 item 3): everything the router knows at one moment — the fleet
 * snapshot, this instance's ejections, every instance's queues, the last 24 h of hourly rollups, the
 * routing config and the table's write failures — gathered once by lib/features/health and passed in,
 * so every check is a pure function of it. Types, and the helpers that slice the rollups by time.
 */
import { type Rollup, sumRollups } from '../analytics/rollup';
import type { Ejection } from '../fleet/ejection';
import type { FleetSnapshot, SnapshotFreshness } from '../fleet/node';
import type { QueueState } from '../fleet/queue-entry';

/** One hourly rollup row (lib/services/analytics/rollup-reader `RollupRow` has this shape). */
export interface ScopedRollup {
  /** Epoch ms the hour starts. */
  readonly startMs: number;
  readonly nodeId?: string;
  readonly model?: string;
  readonly rollup: Rollup;
}

/** The hourly rollups of the 24 h before `now`: the fleet's (with per-style counts), per node, per model. */
export interface HealthTraffic {
  readonly fleetHours: readonly ScopedRollup[];
  readonly nodeHours: readonly ScopedRollup[];
  readonly modelHours: readonly ScopedRollup[];
}

/** The table writes that failed, over a span of time (one instance's write-behind queue, or all). */
export interface TableWrites {
  /** Flush rounds in which some write failed (and was queued again). */
  readonly failedFlushes: number;
  /** Writes the table refused as invalid: lost. */
  readonly rejected: number;
  /** Writes queued and not yet confirmed, now. */
  readonly pending: number;
  /** How long the counts cover, ms. */
  readonly spanMs: number;
  /** Whose writes: `this instance` or `fleet`. */
  readonly scope: string;
}

/** The parts of the router's configuration the checks compare the fleet with. */
export interface HealthConfig {
  /** `FLEET_MODEL_MAP`: client ids → fleet models (`default` names the fallback). */
  readonly modelMap: ReadonlyMap<string, string>;
  /** Unmapped ids go to the best loaded model instead of a 404. */
  readonly autoRoute: boolean;
  /** The runtime settings in force: image generation and speech-to-text on or off. */
  readonly imageGeneration: boolean;
  readonly transcription: boolean;
}

export interface HealthInputs {
  readonly now: number;
  readonly snapshot: FleetSnapshot;
  readonly freshness: SnapshotFreshness;
  /** This instance's ejections in force (each instance learns from its own traffic). */
  readonly ejections: readonly Ejection[];
  /** Every live instance's queues; `rejected` and `timedOut` count the last `queueCountsSpanMs`. */
  readonly queues: readonly QueueState[];
  readonly queueCountsSpanMs: number;
  readonly traffic: HealthTraffic;
  /** The rollups could not be read (then `traffic` is empty). */
  readonly trafficReadFailed: boolean;
  readonly config: HealthConfig;
  readonly writes: TableWrites;
  /** The router's own version (package.json). */
  readonly routerVersion: string;
}

export const HOUR_MS = 3_600_000;

/** Rows of the last hour: the clock hours overlapping [now − 1 h, now] (the current and the previous). */
export function isRecent(row: ScopedRollup, now: number): boolean {
  return row.startMs + HOUR_MS > now - HOUR_MS;
}

/** The sum of the rows, and of their last hour. */
export interface WindowSums {
  readonly day: Rollup;
  readonly recent: Rollup;
  /** The hours before the last one: the baseline a recent figure is compared with. */
  readonly before: Rollup;
}

export function windowSums(rows: readonly ScopedRollup[], now: number): WindowSums {
  return {
    day: sumRollups(rows.map((row) => row.rollup)),
    recent: sumRollups(rows.filter((row) => isRecent(row, now)).map((row) => row.rollup)),
    before: sumRollups(rows.filter((row) => !isRecent(row, now)).map((row) => row.rollup)),
  };
}

/** Rows grouped by a scope (node id or model), each group summed over the day, its last hour and before. */
export function sumsBy(
  rows: readonly ScopedRollup[],
  scope: (row: ScopedRollup) => string | undefined,
  now: number,
): Map<string, WindowSums> {
  const groups = new Map<string, ScopedRollup[]>();
  for (const row of rows) {
    const key = scope(row);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [row]);
    else group.push(row);
  }
  return new Map([...groups].map(([key, group]) => [key, windowSums(group, now)]));
}

/** Requests that ended in an error the fleet caused: failed, or a stream the node cut. */
export function errorsOf(rollup: Rollup): number {
  return rollup.counters.failed + rollup.counters.incomplete;
}

/** `part / whole`, undefined when there is nothing to divide. */
export function ratio(part: number, whole: number): number | undefined {
  return whole > 0 ? part / whole : undefined;
}

/** A percentage to two decimals. */
export function pct(value: number): number {
  return Math.round(value * 10_000) / 100;
}
