/**
 * `GET /dashboard/api/models` (issue 22 item 2; reference anchor-ollama-herd §6.3): per model, a row per
 * UTC day of the window (`daily`) and a `summary` over the window — the reference's fields plus
 * percentiles of latency and time to first token from the histograms (±4.4 %), decode rate and token
 * maxima. The exact minimum and maximum latency are not kept: `min_latency_ms`/`max_latency_ms` are null
 * and `latency_range_ms` gives exact bounds every latency lies in instead. Pure.
 */
import { type Rollup, sumRollups } from './rollup';
import {
  average,
  epochSeconds,
  errorCount,
  groupBy,
  histogramRange,
  type Percentiles,
  percentiles,
  type ScopedRollup,
  tokensPerSecond,
} from './rollup-figures';

export interface ModelDay {
  readonly model_name: string;
  readonly day_bucket: number;
  readonly day: string;
  readonly request_count: number;
  readonly completed_count: number;
  readonly error_count: number;
  readonly avg_latency_ms: number | null;
  readonly avg_ttft_ms: number | null;
  readonly total_prompt_tokens: number;
  readonly total_completion_tokens: number;
  readonly tokens_per_second: number | null;
}

export interface ModelSummary {
  readonly model_name: string;
  readonly total_requests: number;
  readonly completed_count: number;
  readonly error_count: number;
  readonly error_rate_pct: number | null;
  readonly avg_latency_ms: number | null;
  /** Not kept exactly: always null (see `latency_range_ms`). */
  readonly min_latency_ms: null;
  readonly max_latency_ms: null;
  /** Every latency counted lies in [from, below), ms. */
  readonly latency_range_ms: { readonly from: number; readonly below: number } | null;
  readonly latency_ms: Percentiles;
  readonly avg_ttft_ms: number | null;
  readonly ttft_ms: Percentiles;
  readonly tokens_per_second: number | null;
  /** Requests whose node said how many prompt tokens came from its cache. */
  readonly cache_measured_requests: number;
  /** Of those requests' prompt tokens, the share served from the cache, %; null when none said. */
  readonly cache_hit_rate_pct: number | null;
  readonly total_prompt_tokens: number;
  readonly total_completion_tokens: number;
  /** Exact, where the rollups kept it. */
  readonly max_prompt_tokens: number | null;
  readonly max_total_tokens: number | null;
  readonly total_retries: number;
  readonly total_fallbacks: number;
  readonly nodes: readonly string[];
  /** Epoch seconds the first UTC day of the window with a request starts (day precision). */
  readonly first_seen: number;
  /** Epoch seconds of the latest request, where the rollups kept it. */
  readonly last_seen: number | null;
}

export interface ModelsView {
  readonly days: number;
  readonly start_ts: number;
  readonly end_ts: number;
  readonly percentile_error_pct: number;
  readonly daily: readonly ModelDay[];
  readonly summary: readonly ModelSummary[];
}

/** Day × node × model rows folded per model and day, then per model. */
export function modelsView(rows: readonly ScopedRollup[]): Pick<ModelsView, 'daily' | 'summary'> {
  const withModel = rows.filter((row) => row.model !== undefined && row.rollup.counters.requests > 0);
  const daily = [...groupBy(withModel, (row) => `${row.period}\u0000${row.model}`).values()]
    .map((group) => modelDay(group))
    .sort((a, b) => a.day_bucket - b.day_bucket || a.model_name.localeCompare(b.model_name));
  const summary = [...groupBy(withModel, (row) => row.model as string).values()]
    .map((group) => modelSummary(group))
    .sort((a, b) => b.total_requests - a.total_requests || a.model_name.localeCompare(b.model_name));
  return { daily, summary };
}

function modelDay(group: readonly ScopedRollup[]): ModelDay {
  const first = group[0] as ScopedRollup;
  const rollup = sumRollups(group.map((row) => row.rollup));
  const c = rollup.counters;
  return {
    model_name: first.model as string,
    day_bucket: epochSeconds(first.startMs),
    day: first.period,
    request_count: c.requests,
    completed_count: c.completed,
    error_count: errorCount(rollup),
    avg_latency_ms: average(c.latency_ms, c.requests),
    avg_ttft_ms: average(c.ttft_ms, c.ttft_count),
    total_prompt_tokens: c.prompt_tokens,
    total_completion_tokens: c.completion_tokens,
    tokens_per_second: tokensPerSecond(rollup),
  };
}

function modelSummary(group: readonly ScopedRollup[]): ModelSummary {
  const rollup: Rollup = sumRollups(group.map((row) => row.rollup));
  const c = rollup.counters;
  const lastAt = rollup.maxima.last_at;
  return {
    model_name: (group[0] as ScopedRollup).model as string,
    total_requests: c.requests,
    completed_count: c.completed,
    error_count: errorCount(rollup),
    error_rate_pct: average(errorCount(rollup) * 100, c.requests),
    avg_latency_ms: average(c.latency_ms, c.requests),
    min_latency_ms: null,
    max_latency_ms: null,
    latency_range_ms: histogramRange(rollup.histograms.latency_ms),
    latency_ms: percentiles(rollup.histograms.latency_ms),
    avg_ttft_ms: average(c.ttft_ms, c.ttft_count),
    ttft_ms: percentiles(rollup.histograms.ttft_ms),
    tokens_per_second: tokensPerSecond(rollup),
    cache_measured_requests: c.cached_count,
    cache_hit_rate_pct: c.cached_count === 0 ? null : average(c.cached_tokens * 100, c.cached_prompt_tokens),
    total_prompt_tokens: c.prompt_tokens,
    total_completion_tokens: c.completion_tokens,
    max_prompt_tokens: rollup.maxima.max_prompt_tokens ?? null,
    max_total_tokens: rollup.maxima.max_total_tokens ?? null,
    total_retries: c.retries,
    total_fallbacks: c.fallbacks,
    nodes: [...new Set(group.flatMap((row) => (row.nodeId === undefined ? [] : [row.nodeId])))].sort(),
    first_seen: epochSeconds(Math.min(...group.map((row) => row.startMs))),
    last_seen: lastAt === undefined ? null : epochSeconds(lastAt),
  };
}
