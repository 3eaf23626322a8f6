/**
 * `GET /dashboard/api/trends` (issue 22 item 2; reference anchor-ollama-herd §5.2, §6.3): one entry per
 * UTC hour the window overlaps, oldest first, empty hours included (counts 0, averages and percentiles
 * null) so a chart's time axis is continuous. Percentiles from the fleet's hourly histograms (±4.4 %).
 * Pure.
 */
import { emptyRollup, type Rollup, sumRollups } from './rollup';
import { average, epochSeconds, errorCount, groupBy, quantile, type ScopedRollup } from './rollup-figures';

export interface TrendHour {
  /** Epoch seconds the UTC hour starts. */
  readonly hour_bucket: number;
  readonly request_count: number;
  readonly completed_count: number;
  /** Requests not completed (failed, client disconnected, incomplete). */
  readonly error_count: number;
  readonly avg_latency_ms: number | null;
  readonly p50_latency_ms: number | null;
  readonly p95_latency_ms: number | null;
  readonly avg_ttft_ms: number | null;
  readonly p50_ttft_ms: number | null;
  readonly p95_ttft_ms: number | null;
  readonly total_prompt_tokens: number;
  readonly total_completion_tokens: number;
}

export interface TrendsView {
  readonly hours: number;
  readonly start_ts: number;
  readonly end_ts: number;
  readonly percentile_error_pct: number;
  readonly data: readonly TrendHour[];
}

/** `hourStarts` (epoch ms, utcHoursIn of the window) each with the fleet rows of that hour summed. */
export function trendHours(hourStarts: readonly number[], rows: readonly ScopedRollup[]): TrendHour[] {
  const byHour = groupBy(rows, (row) => String(row.startMs));
  return hourStarts.map((start) => {
    const group = byHour.get(String(start));
    return trendHour(start, group === undefined ? emptyRollup() : sumRollups(group.map((row) => row.rollup)));
  });
}

function trendHour(startMs: number, rollup: Rollup): TrendHour {
  const c = rollup.counters;
  return {
    hour_bucket: epochSeconds(startMs),
    request_count: c.requests,
    completed_count: c.completed,
    error_count: errorCount(rollup),
    avg_latency_ms: average(c.latency_ms, c.requests),
    p50_latency_ms: quantile(rollup.histograms.latency_ms, 0.5),
    p95_latency_ms: quantile(rollup.histograms.latency_ms, 0.95),
    avg_ttft_ms: average(c.ttft_ms, c.ttft_count),
    p50_ttft_ms: quantile(rollup.histograms.ttft_ms, 0.5),
    p95_ttft_ms: quantile(rollup.histograms.ttft_ms, 0.95),
    total_prompt_tokens: c.prompt_tokens,
    total_completion_tokens: c.completion_tokens,
  };
}
