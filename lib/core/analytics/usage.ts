/**
 * `GET /dashboard/api/usage` (issue 22 item 2; reference anchor-ollama-herd §5.2, §6.3): one row per
 * UTC day × node × model of the window, with the reference's fields and what it lacked (the other
 * outcomes, TTFT measured count, cached tokens, cold loads). Averages are exact to one decimal. Pure.
 */
import { average, epochSeconds, errorCount, type ScopedRollup } from './rollup-figures';

export interface UsageRow {
  readonly node_id: string;
  readonly model_name: string;
  /** Epoch seconds the UTC day starts. */
  readonly day_bucket: number;
  readonly day: string;
  readonly request_count: number;
  readonly completed_count: number;
  /** Status `failed` only, as the reference counts it. */
  readonly failed_count: number;
  readonly client_disconnected_count: number;
  readonly incomplete_count: number;
  /** Requests not completed (failed, disconnected, incomplete). */
  readonly error_count: number;
  /** Failed attempts that were retried on another node (not requests). */
  readonly retried_attempts: number;
  readonly avg_latency_ms: number | null;
  readonly avg_ttft_ms: number | null;
  readonly total_prompt_tokens: number;
  readonly total_completion_tokens: number;
  readonly total_tokens: number;
  readonly total_retries: number;
  readonly total_fallbacks: number;
  /** Prompt tokens served from the node's cache, over the requests that report it (null: none did). */
  readonly cached_prompt_tokens: number | null;
  readonly cold_loads: number;
}

export interface UsageView {
  readonly days: number;
  readonly start_ts: number;
  readonly end_ts: number;
  readonly data: readonly UsageRow[];
}

/** Day × node × model rows, oldest day first, then node and model by name. */
export function usageRows(rows: readonly ScopedRollup[]): UsageRow[] {
  return rows
    .filter((row) => row.nodeId !== undefined && row.model !== undefined)
    .sort(
      (a, b) =>
        a.startMs - b.startMs ||
        (a.nodeId as string).localeCompare(b.nodeId as string) ||
        (a.model as string).localeCompare(b.model as string),
    )
    .map(({ period, startMs, nodeId, model, rollup }) => {
      const c = rollup.counters;
      return {
        node_id: nodeId as string,
        model_name: model as string,
        day_bucket: epochSeconds(startMs),
        day: period,
        request_count: c.requests,
        completed_count: c.completed,
        failed_count: c.failed,
        client_disconnected_count: c.client_disconnected,
        incomplete_count: c.incomplete,
        error_count: errorCount(rollup),
        retried_attempts: c.retried,
        avg_latency_ms: average(c.latency_ms, c.requests),
        avg_ttft_ms: average(c.ttft_ms, c.ttft_count),
        total_prompt_tokens: c.prompt_tokens,
        total_completion_tokens: c.completion_tokens,
        total_tokens: c.prompt_tokens + c.completion_tokens,
        total_retries: c.retries,
        total_fallbacks: c.fallbacks,
        cached_prompt_tokens: c.cached_count > 0 ? c.cached_tokens : null,
        cold_loads: c.cold_loads,
      };
    });
}
