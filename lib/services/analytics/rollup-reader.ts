/**
 * Reading the rollups back (issue 22 item 1): a window's items only, one Query per period partition
 * (lib/services/store/keys `dayRollupKey`, `hourRollupKey`), never a Scan and never a trace, so a 30-day
 * read costs the same table calls at a thousand requests as at ten million.
 * Day rows are whole UTC days (a window that starts mid-day reads that day whole); hour rows are the
 * hours the window overlaps.
 */
import { type Rollup, rollupOf } from '../../core/analytics/rollup';
import { type TimeWindow, utcDaysIn } from '../../core/analytics/window';
import { settleLimited } from '../store/concurrency';
import type { StoredItem } from '../store/item';
import { KEY_SEPARATOR, prefixedKey, ROLLUP_SK_PREFIX } from '../store/keys';
import type { Table } from '../store/table';

/** One rollup item as read: its period and scope, and its sums. */
export interface RollupRow {
  /** `2026-11-26` for a day, `2026-11-26T13` for an hour. */
  readonly period: string;
  /** Epoch ms the period starts (UTC). */
  readonly startMs: number;
  readonly nodeId?: string;
  readonly model?: string;
  readonly tag?: string;
  /** The application of a day × application rollup (issue 43). */
  readonly app?: string;
  readonly rollup: Rollup;
}

export interface RollupReader {
  /** Per UTC day × node × model, for every day the window overlaps. */
  nodeModelDays(window: TimeWindow): Promise<RollupRow[]>;
  /** Per UTC day × tag. */
  tagDays(window: TimeWindow): Promise<RollupRow[]>;
  /** Per UTC day × application (issue 43), in `RollupRow.tag`'s place: `app`. */
  appDays(window: TimeWindow): Promise<RollupRow[]>;
  /** Per UTC hour, the whole fleet (with per-style counts). */
  fleetHours(window: TimeWindow): Promise<RollupRow[]>;
  /** Per UTC hour × model. */
  modelHours(window: TimeWindow): Promise<RollupRow[]>;
  /** Per UTC hour × node. */
  nodeHours(window: TimeWindow): Promise<RollupRow[]>;
  /** All-time totals per node × model (`period` is `all`, `startMs` 0). */
  totals(): Promise<RollupRow[]>;
}

/** Period partitions read at once: a 30-day window is 30 Queries, four in flight. */
const READ_CONCURRENCY = 4;
const HOUR_MS = 3_600_000;

export function createRollupReader(table: Pick<Table, 'queryDocs'>): RollupReader {
  async function readPartitions<T>(
    pks: readonly string[],
    skPrefix: string,
    toRow: (item: StoredItem) => T | undefined,
  ) {
    const results = await settleLimited(
      pks.map((pk) => () => table.queryDocs(pk, { skPrefix })),
      READ_CONCURRENCY,
    );
    const rows: T[] = [];
    for (const result of results) {
      if (result.status === 'rejected') throw result.reason;
      for (const item of result.value) {
        const row = toRow(item);
        if (row !== undefined) rows.push(row);
      }
    }
    return rows;
  }

  const dayPartitions = (window: TimeWindow) => utcDaysIn(window).map((day) => prefixedKey('ROLLUP', 'D', day));
  const hourPartitions = (window: TimeWindow) => utcDaysIn(window).map((day) => prefixedKey('ROLLUP', 'H', day));
  const inWindow = (window: TimeWindow) => (row: RollupRow | undefined) =>
    row !== undefined && row.startMs + HOUR_MS > window.startMs && row.startMs < window.endMs ? row : undefined;

  const hours = (window: TimeWindow, kind: 'fleet' | 'model' | 'node') =>
    readPartitions(hourPartitions(window), ROLLUP_SK_PREFIX[kind], (item) => inWindow(window)(hourRow(item, kind)));

  /** A day's rows of one named scope (tag, application): the name after its sort-key prefix. */
  const namedDays = (window: TimeWindow, kind: 'tag' | 'app') =>
    readPartitions(dayPartitions(window), ROLLUP_SK_PREFIX[kind], (item) => {
      const day = dayOfPk(item.pk);
      return {
        period: day,
        startMs: Date.parse(`${day}T00:00:00Z`),
        [kind]: item.sk.slice(ROLLUP_SK_PREFIX[kind].length),
        rollup: rollupOf(item.attributes),
      };
    });

  return {
    nodeModelDays: (window) =>
      readPartitions(dayPartitions(window), ROLLUP_SK_PREFIX['node-model'], (item) =>
        nodeModelRow(item, dayOfPk(item.pk)),
      ),
    tagDays: (window) => namedDays(window, 'tag'),
    appDays: (window) => namedDays(window, 'app'),
    fleetHours: (window) => hours(window, 'fleet'),
    modelHours: (window) => hours(window, 'model'),
    nodeHours: (window) => hours(window, 'node'),
    totals: () =>
      readPartitions([prefixedKey('ROLLUP', 'T')], ROLLUP_SK_PREFIX['node-model'], (item) => nodeModelRow(item, 'all')),
  };
}

/** `2026-11-26` from `ROLLUP#D#2026-11-26` or `ROLLUP#H#2026-11-26`. */
function dayOfPk(pk: string): string {
  return pk.slice(pk.lastIndexOf(KEY_SEPARATOR) + 1);
}

/** `NM#<node>#<model>`: the node id holds no separator (keys.ts), the model may. */
function nodeModelRow(item: StoredItem, period: string): RollupRow | undefined {
  const rest = item.sk.slice(ROLLUP_SK_PREFIX['node-model'].length);
  const split = rest.indexOf(KEY_SEPARATOR);
  if (split < 0) return undefined;
  return {
    period,
    startMs: period === 'all' ? 0 : Date.parse(`${period}T00:00:00Z`),
    nodeId: rest.slice(0, split),
    model: rest.slice(split + 1),
    rollup: rollupOf(item.attributes),
  };
}

/** `F#<HH>`, `M#<HH>#<model>`, `N#<HH>#<node>` in `ROLLUP#H#<day>`. */
function hourRow(item: StoredItem, kind: 'fleet' | 'model' | 'node'): RollupRow | undefined {
  const rest = item.sk.slice(ROLLUP_SK_PREFIX[kind].length);
  const hour = rest.slice(0, 2);
  const name = rest.slice(3);
  const day = dayOfPk(item.pk);
  const startMs = Date.parse(`${day}T${hour}:00:00Z`);
  if (!Number.isFinite(startMs)) return undefined;
  const row = { period: `${day}T${hour}`, startMs, rollup: rollupOf(item.attributes) };
  if (kind === 'model') return { ...row, model: name };
  if (kind === 'node') return { ...row, nodeId: name };
  return row;
}
