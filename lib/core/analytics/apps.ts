/**
 * Per-tag analytics (issue 22 item 2: `GET /dashboard/api/apps`, `/apps/daily`; spec §2 "Tag"): the
 * day × tag rollups of a window summed per tag, or shown per day, in the reference's shapes (research
 * anchor-ollama-herd §5.2, §6.3) with what it lacks: percentiles, error rate, token totals.
 *
 * A request counts once per tag it carries (`metadata.tags`, `X-Service-Tags`, `user:<value>`), so the
 * summary's `request_count` sums tag-requests: a request with two tags counts in both. Failed means
 * `failed` only, as the reference counts it; the error rate counts every request that did not complete
 * (failed, incomplete, client disconnected), as the reference's error-rate queries do. A retried attempt
 * is not a request (lib/core/analytics/rollup). Percentiles are read from log-bucket histograms, within
 * `HISTOGRAM_RELATIVE_ERROR`; every other figure is exact. `first_seen` is the start of the first UTC day
 * in the window with a request (rollups are per day); `last_seen` the exact time of the last one, null
 * where the rollups do not hold it. Times are epoch seconds, as the reference gives them. Pure.
 */
import { percentile } from './histogram';
import { type Rollup, sumRollups } from './rollup';
import { round1 } from './rollup-figures';

/** One day × tag rollup as read (lib/services/analytics/rollup-reader `RollupRow`). */
export interface TagDayRollup {
  readonly tag?: string;
  /** Epoch ms the UTC day starts. */
  readonly startMs: number;
  readonly rollup: Rollup;
}

/** What a tag's requests came to, over the window or one day. */
interface TagFigures {
  readonly request_count: number;
  readonly completed_count: number;
  readonly failed_count: number;
  readonly incomplete_count: number;
  readonly client_disconnected_count: number;
  readonly error_rate_pct: number;
  readonly avg_latency_ms: number;
  readonly p50_latency_ms: number | null;
  readonly p95_latency_ms: number | null;
  readonly avg_ttft_ms: number | null;
  readonly total_prompt_tokens: number;
  readonly total_completion_tokens: number;
  readonly total_tokens: number;
}

export interface TagUsage extends TagFigures {
  readonly tag: string;
  readonly first_seen: number;
  readonly last_seen: number | null;
}

export interface TagDay extends TagFigures {
  readonly tag: string;
  /** Epoch seconds of the UTC day's start. */
  readonly day_bucket: number;
  /** `2026-11-26`. */
  readonly date: string;
}

export interface TagSummary {
  readonly tag_count: number;
  /** The tag with the most requests, null with none. */
  readonly top_tag: string | null;
  /** Requests summed over the tags (a request with two tags counts twice). */
  readonly request_count: number;
  readonly total_tokens: number;
}

function figures(rollup: Rollup): TagFigures {
  const { counters, histograms } = rollup;
  const requests = counters.requests;
  const p50 = percentile(histograms.latency_ms, 0.5);
  const p95 = percentile(histograms.latency_ms, 0.95);
  return {
    request_count: requests,
    completed_count: counters.completed,
    failed_count: counters.failed,
    incomplete_count: counters.incomplete,
    client_disconnected_count: counters.client_disconnected,
    error_rate_pct: round1(((requests - counters.completed) / requests) * 100),
    avg_latency_ms: round1(counters.latency_ms / requests),
    p50_latency_ms: p50 === undefined ? null : Math.round(p50),
    p95_latency_ms: p95 === undefined ? null : Math.round(p95),
    avg_ttft_ms: counters.ttft_count > 0 ? round1(counters.ttft_ms / counters.ttft_count) : null,
    total_prompt_tokens: counters.prompt_tokens,
    total_completion_tokens: counters.completion_tokens,
    total_tokens: counters.prompt_tokens + counters.completion_tokens,
  };
}

const byTag = (a: { tag: string }, b: { tag: string }) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0);

/** Per tag over the window, most requests first (then by tag); tags without a request are left out. */
export function tagUsage(rows: readonly TagDayRollup[]): TagUsage[] {
  const grouped = new Map<string, TagDayRollup[]>();
  for (const row of rows) {
    if (row.tag === undefined || row.rollup.counters.requests === 0) continue;
    const group = grouped.get(row.tag);
    if (group === undefined) grouped.set(row.tag, [row]);
    else group.push(row);
  }
  const usage: TagUsage[] = [];
  for (const [tag, group] of grouped) {
    const sum = sumRollups(group.map((row) => row.rollup));
    const lastAt = sum.maxima.last_at;
    usage.push({
      tag,
      ...figures(sum),
      first_seen: Math.min(...group.map((row) => row.startMs)) / 1000,
      last_seen: lastAt === undefined ? null : lastAt / 1000,
    });
  }
  return usage.sort((a, b) => b.request_count - a.request_count || byTag(a, b));
}

/** Per tag and UTC day, oldest day first, then by tag; days without a request are left out. */
export function tagDaily(rows: readonly TagDayRollup[]): TagDay[] {
  const days: TagDay[] = [];
  for (const row of rows) {
    if (row.tag === undefined || row.rollup.counters.requests === 0) continue;
    days.push({
      tag: row.tag,
      day_bucket: row.startMs / 1000,
      date: new Date(row.startMs).toISOString().slice(0, 10),
      ...figures(row.rollup),
    });
  }
  return days.sort((a, b) => a.day_bucket - b.day_bucket || byTag(a, b));
}

/** The page's header cards over `usage` (as `tagUsage` orders it). */
export function tagSummary(usage: readonly TagUsage[]): TagSummary {
  let requests = 0;
  let tokens = 0;
  for (const entry of usage) {
    requests += entry.request_count;
    tokens += entry.total_tokens;
  }
  return { tag_count: usage.length, top_tag: usage[0]?.tag ?? null, request_count: requests, total_tokens: tokens };
}
