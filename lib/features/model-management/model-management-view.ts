/**
 * What `GET /dashboard/api/model-management` shows (issue 22 item 5; anchor §6.3 shape, with exact
 * request counts beside it): per node, each model on its disk — size, parameters, quantisation and
 * family (the node's `details`), loaded or not (and the context it is loaded with), when it last served
 * a request, its requests over the last 7 and 30 UTC days and all time, and `unused` when it served none
 * in the 7 days — with the node's disk. Models sort loaded first, then most recently used, then by name.
 * Pure: rollup rows and the clock come in.
 */
import type { Rollup } from '../../core/analytics/rollup';
import type { NodeModel, NodeView } from '../../core/fleet/node';
import { modelNameKeys } from '../../core/fleet/snapshot';
import { catalogEntry, categoryOf } from '../../core/recommendations/model-category';

/** A rollup row as this view reads it (lib/services/analytics/rollup-reader `RollupRow`). */
export interface UsageRow {
  readonly startMs: number;
  readonly nodeId?: string;
  readonly model?: string;
  readonly rollup: Rollup;
}

export interface UsageWindows {
  /** Epoch ms of the first UTC day counted in `requests_7d` and in `requests_30d`. */
  readonly days7StartMs: number;
  readonly days30StartMs: number;
}

export interface ManagedModel {
  readonly name: string;
  readonly display_name: string | null;
  readonly category: string | null;
  readonly family: string | null;
  readonly size_bytes: number;
  readonly size_gb: number;
  readonly parameter_size: string | null;
  readonly quantization: string | null;
  readonly loaded: boolean;
  /** The reference's name for `loaded`. */
  readonly loaded_in_vram: boolean;
  readonly context_length: number | null;
  readonly loaded_size_bytes: number | null;
  /** Epoch seconds of the last request it served, when the rollups know it. */
  readonly last_used: number | null;
  readonly days_unused: number | null;
  readonly requests_7d: number;
  readonly requests_30d: number;
  readonly total_requests: number;
  readonly unused: boolean;
}

export interface ManagedNode {
  readonly node_id: string;
  readonly status: NodeView['status'];
  readonly models: readonly ManagedModel[];
  readonly model_count: number;
  readonly loaded_count: number;
  readonly total_size_bytes: number;
  readonly total_size_gb: number;
  readonly disk_total_gb: number | null;
  readonly disk_available_gb: number | null;
}

const DAY_MS = 86_400_000;
const round2 = (value: number) => Math.round(value * 100) / 100;

function text(details: Readonly<Record<string, unknown>>, key: string): string | null {
  const value = details[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

interface Usage {
  days7: number;
  days30: number;
  total: number;
  lastAt: number | undefined;
}

/** Node id → model name → usage, from the day rows (30 days) and the all-time rows. */
function usageIndex(days: readonly UsageRow[], totals: readonly UsageRow[], windows: UsageWindows) {
  const index = new Map<string, Usage>();
  const entry = (row: UsageRow) => {
    const key = `${row.nodeId}\u0000${row.model}`;
    const usage = index.get(key) ?? { days7: 0, days30: 0, total: 0, lastAt: undefined };
    index.set(key, usage);
    const lastAt = row.rollup.maxima.last_at;
    if (lastAt !== undefined && (usage.lastAt === undefined || lastAt > usage.lastAt)) usage.lastAt = lastAt;
    return usage;
  };
  for (const row of days) {
    const usage = entry(row);
    const requests = row.rollup.counters.requests;
    if (row.startMs >= windows.days30StartMs) usage.days30 += requests;
    if (row.startMs >= windows.days7StartMs) usage.days7 += requests;
  }
  for (const row of totals) entry(row).total += row.rollup.counters.requests;
  return (nodeId: string, name: string): Usage => {
    const sum: Usage = { days7: 0, days30: 0, total: 0, lastAt: undefined };
    for (const key of modelNameKeys(name)) {
      const usage = index.get(`${nodeId}\u0000${key}`);
      if (usage === undefined) continue;
      sum.days7 += usage.days7;
      sum.days30 += usage.days30;
      sum.total += usage.total;
      if (usage.lastAt !== undefined && (sum.lastAt === undefined || usage.lastAt > sum.lastAt))
        sum.lastAt = usage.lastAt;
    }
    return sum;
  };
}

function managedModel(node: NodeView, model: NodeModel, usage: Usage, now: number): ManagedModel {
  const loaded = node.loaded.find((entry) => entry.name === model.name);
  const entry = catalogEntry(model.name);
  return {
    name: model.name,
    display_name: entry?.display_name ?? null,
    category: categoryOf(model.name, model) ?? null,
    family: text(model.details, 'family'),
    size_bytes: model.size,
    size_gb: round2(model.size / 1e9),
    parameter_size: text(model.details, 'parameter_size'),
    quantization: text(model.details, 'quantization_level'),
    loaded: loaded !== undefined,
    loaded_in_vram: loaded !== undefined,
    context_length: loaded?.contextLength ?? null,
    loaded_size_bytes: loaded?.size ?? null,
    last_used: usage.lastAt === undefined ? null : Math.floor(usage.lastAt / 1000),
    days_unused: usage.lastAt === undefined ? null : Math.max(0, Math.floor((now - usage.lastAt) / DAY_MS)),
    requests_7d: usage.days7,
    requests_30d: usage.days30,
    total_requests: usage.total,
    unused: usage.days7 === 0,
  };
}

/** Loaded first, then the most recently used (never used last), then by name. */
function byManagement(a: ManagedModel, b: ManagedModel): number {
  if (a.loaded !== b.loaded) return a.loaded ? -1 : 1;
  const last = (model: ManagedModel) => model.last_used ?? Number.NEGATIVE_INFINITY;
  if (last(a) !== last(b)) return last(b) - last(a);
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function modelManagementView(
  nodes: readonly NodeView[],
  rows: { readonly days: readonly UsageRow[]; readonly totals: readonly UsageRow[] },
  windows: UsageWindows,
  now: number,
): ManagedNode[] {
  const usageOf = usageIndex(rows.days, rows.totals, windows);
  return nodes.map((node) => {
    const models = node.models
      .map((model) => managedModel(node, model, usageOf(node.id, model.name), now))
      .sort(byManagement);
    const total = node.models.reduce((sum, model) => sum + model.size, 0);
    return {
      node_id: node.id,
      status: node.status,
      models,
      model_count: models.length,
      loaded_count: models.filter((model) => model.loaded).length,
      total_size_bytes: total,
      total_size_gb: round2(total / 1e9),
      disk_total_gb: node.disk?.totalGb ?? null,
      disk_available_gb: node.disk?.availableGb ?? null,
    };
  });
}
