/**
 * Reading the rollups back (issue 22 item 1): a window's items only, one Query per period partition
 * (lib/services/store/keys `dayRollupKey`, `hourRollupKey`), never a Scan and never a trace, so a 30-day
 * read costs the same table calls at a thousand requests as at ten million.
 *
 * CONTRACT (issue 22): the interface below is what every operator feature codes against; the
 * implementation (`createRollupReader`) is built in this file.
 */
import type { Rollup } from '../../core/analytics/rollup';
import type { TimeWindow } from '../../core/analytics/window';

/** One rollup item as read: its period and scope, and its sums. */
export interface RollupRow {
  /** `2026-11-26` for a day, `2026-11-26T13` for an hour. */
  readonly period: string;
  /** Epoch ms the period starts (UTC). */
  readonly startMs: number;
  readonly nodeId?: string;
  readonly model?: string;
  readonly tag?: string;
  readonly rollup: Rollup;
}

export interface RollupReader {
  /** Per UTC day × node × model, for every day the window overlaps. */
  nodeModelDays(window: TimeWindow): Promise<RollupRow[]>;
  /** Per UTC day × tag. */
  tagDays(window: TimeWindow): Promise<RollupRow[]>;
  /** Per UTC hour, the whole fleet (with per-style counts). */
  fleetHours(window: TimeWindow): Promise<RollupRow[]>;
  /** Per UTC hour × model. */
  modelHours(window: TimeWindow): Promise<RollupRow[]>;
  /** Per UTC hour × node. */
  nodeHours(window: TimeWindow): Promise<RollupRow[]>;
  /** All-time totals per node × model (`period` is `all`, `startMs` 0). */
  totals(): Promise<RollupRow[]>;
}
