/**
 * The context usage record per model (spec §2 "Context usage record"; issue 22 item 2,
 * `GET /dashboard/api/context-usage`), computed as the reference does (research anchor-ollama-herd §5.3)
 * from the rollups instead of a scan of the traces:
 *
 * - The distributions count completed requests that reported prompt tokens (`measured_requests`), as
 *   the reference's do: `prompt_tokens` p50–p99 and `total_tokens` p95/p99 from the rollups' log-bucket
 *   histograms, so within `HISTOGRAM_RELATIVE_ERROR` (4.4 %) and never above the exact maximum; `max` is
 *   exact (the rollups' maxima), null where a rollup of the window lacks it. `max_24h` is the largest
 *   total of the 24 hours before the window's end (whole UTC hours), null with no such request.
 * - `request_count` is every request of the model in the window (spec §2: "total requests in the
 *   period"), and `prompt_tokens.avg` is exact over the same requests: the rollups sum the prompt tokens
 *   of every request, not only of the measured ones, so that is the count they divide by.
 * - `allocated_ctx`: the largest context among the model's loaded copies on nodes not offline (the
 *   reference's "online"), 0 when none is loaded, null when the loaded copies do not say.
 * - `recommended_ctx`: the next power of two ≥ 1.5 × max(total p99, max_24h), at least 4096 (4096 when
 *   both are 0 or unknown), capped to `allocated_ctx` when that is above 0. The reference truncates
 *   1.5 × baseline first, which can recommend less than the headroom; this does not.
 * - `utilization_pct` = total p99 / allocated, `savings_pct` = (allocated − recommended) / allocated,
 *   both in % to one decimal, 0 when nothing is allocated.
 *
 * Models are ordered by request count, most first, then by name. Pure.
 */
import type { NodeView } from '../fleet/node';
import { modelNameKeys } from '../fleet/snapshot';
import { histogramCount, percentile } from './histogram';
import { type Rollup, sumRollups } from './rollup';
import { groupBy, round1 } from './rollup-figures';

/** A rollup of one model (lib/services/analytics/rollup-reader `RollupRow`: day × node × model or hour × model). */
export interface ModelRollup {
  readonly model?: string;
  readonly rollup: Rollup;
}

export interface ContextUsage {
  readonly model: string;
  readonly allocated_ctx: number | null;
  readonly request_count: number;
  readonly measured_requests: number;
  readonly prompt_tokens: {
    readonly avg: number;
    readonly p50: number | null;
    readonly p75: number | null;
    readonly p95: number | null;
    readonly p99: number | null;
    readonly max: number | null;
  };
  readonly total_tokens: {
    readonly p95: number | null;
    readonly p99: number | null;
    readonly max: number | null;
    readonly max_24h: number | null;
  };
  readonly utilization_pct: number | null;
  readonly recommended_ctx: number;
  readonly savings_pct: number | null;
}

/**
 * The smallest context recommended: what Ollama gives a model when nothing sets `num_ctx` (4,096 on a
 * GPU under 24 GiB; 2,048 in older releases), so no advice asks for less than a model gets
 * untouched. Every recommendation is a power of two from here (4096, 8192, …, 131072): the sizes
 * people load models with, and the ones the router itself asks nodes for.
 */
export const MIN_RECOMMENDED_CTX = 4096;
/** Headroom over the observed need. */
export const CONTEXT_HEADROOM = 1.5;
/**
 * The fewest measured requests a context is sized from (issue 44 item 1): a few requests say little about
 * the next day's largest, and a context too small cuts prompts. The health check counts a model's last
 * 24 hours; the Context view, the window it shows.
 */
export const MIN_SIZING_REQUESTS = 200;

/** The smallest power of two ≥ `value` (1 for values ≤ 1). */
export function nextPowerOfTwo(value: number): number {
  let power = 1;
  while (power < value) power *= 2;
  return power;
}

/** The context for requests of at most `used` tokens: the headroom, up to a power of two, at least the minimum. */
export function contextForUse(used: number): number {
  return Math.max(MIN_RECOMMENDED_CTX, nextPowerOfTwo(CONTEXT_HEADROOM * used));
}

/** What the context should be for a model whose largest totals are these, capped to what is allocated. */
export function recommendedContext(totalP99: number, max24h: number, allocated: number | null): number {
  const wanted = contextForUse(Math.max(totalP99, max24h));
  return allocated !== null && allocated > 0 ? Math.min(wanted, allocated) : wanted;
}

/** Model name (and its `:latest` twin) → the largest context among its loaded copies on nodes not offline. */
export function allocatedContexts(nodes: readonly NodeView[]): ReadonlyMap<string, number | null> {
  const allocated = new Map<string, number | null>();
  for (const node of nodes) {
    if (node.status === 'offline') continue;
    for (const loaded of node.loaded) {
      for (const key of modelNameKeys(loaded.name)) {
        const known = allocated.get(key) ?? null;
        const length = loaded.contextLength ?? null;
        allocated.set(key, length === null ? known : Math.max(known ?? 0, length));
      }
    }
  }
  return allocated;
}

/**
 * The exact maximum over `rows`, or null: when no row counted a measured request, or a row that did
 * lacks the maximum (written before rollups kept maxima), the largest value is not known.
 */
function exactMaximum(rows: readonly Rollup[], name: 'max_prompt_tokens' | 'max_total_tokens'): number | null {
  let max: number | null = null;
  for (const rollup of rows) {
    if (histogramCount(rollup.histograms.prompt_tokens) === 0) continue;
    const value = rollup.maxima[name];
    if (value === undefined) return null;
    max = Math.max(max ?? value, value);
  }
  return max;
}

/** Each model's rollups, in input order. */
function groupByModel(rows: readonly ModelRollup[]): Map<string, Rollup[]> {
  const named = rows.filter((row): row is ModelRollup & { model: string } => row.model !== undefined);
  return new Map(
    [...groupBy(named, (row) => row.model)].map(([model, group]) => [model, group.map((row) => row.rollup)]),
  );
}

export interface ContextUsageInput {
  /** The window's rollups per model (day × node × model rows). */
  readonly window: readonly ModelRollup[];
  /** The 24 hours before the window's end (hour × model rows). */
  readonly last24h: readonly ModelRollup[];
  readonly allocated: ReadonlyMap<string, number | null>;
}

/** One record per model with a measured request in the window, most requests first. */
export function contextUsage(input: ContextUsageInput): ContextUsage[] {
  const recent = groupByModel(input.last24h);
  const records: ContextUsage[] = [];
  for (const [model, rollups] of groupByModel(input.window)) {
    const sum = sumRollups(rollups);
    const measured = histogramCount(sum.histograms.prompt_tokens);
    if (measured === 0) continue;
    const allocated = input.allocated.get(model);
    records.push(modelRecord(model, sum, rollups, recent.get(model) ?? [], allocated === undefined ? 0 : allocated));
  }
  return records.sort((a, b) => b.request_count - a.request_count || (a.model < b.model ? -1 : 1));
}

function modelRecord(
  model: string,
  sum: Rollup,
  rollups: readonly Rollup[],
  recent: readonly Rollup[],
  allocated: number | null,
): ContextUsage {
  const maxPrompt = exactMaximum(rollups, 'max_prompt_tokens');
  const maxTotal = exactMaximum(rollups, 'max_total_tokens');
  const read = (name: 'prompt_tokens' | 'total_tokens', q: number, max: number | null) => {
    const value = percentile(sum.histograms[name], q, max ?? undefined);
    return value === undefined ? null : Math.round(value);
  };
  const totalP99 = read('total_tokens', 0.99, maxTotal);
  const max24h = exactMaximum(recent, 'max_total_tokens');
  const recommended = recommendedContext(totalP99 ?? 0, max24h ?? 0, allocated);
  const share = (part: number) => (allocated === null ? null : allocated > 0 ? round1((part / allocated) * 100) : 0);
  return {
    model,
    allocated_ctx: allocated,
    request_count: sum.counters.requests,
    measured_requests: histogramCount(sum.histograms.prompt_tokens),
    prompt_tokens: {
      avg: Math.round(sum.counters.prompt_tokens / sum.counters.requests),
      p50: read('prompt_tokens', 0.5, maxPrompt),
      p75: read('prompt_tokens', 0.75, maxPrompt),
      p95: read('prompt_tokens', 0.95, maxPrompt),
      p99: read('prompt_tokens', 0.99, maxPrompt),
      max: maxPrompt,
    },
    total_tokens: { p95: read('total_tokens', 0.95, maxTotal), p99: totalP99, max: maxTotal, max_24h: max24h },
    utilization_pct: share(totalP99 ?? 0),
    recommended_ctx: recommended,
    savings_pct: share(Math.max(0, (allocated ?? 0) - recommended)),
  };
}
