/**
 * `GET /dashboard/api/usage` (issue 22 item 2; reference anchor-ollama-herd §5.2, §6.3): one row per
 * UTC day × node × model of the window, with the reference's fields and what it lacked (the other
 * outcomes, TTFT measured count, cached tokens, cold loads), and the nodes' own prefill and decode rates
 * and prompt-cache share (./observed-rates, issue 41 item 5) per row, per node and for the fleet over the
 * window. Averages and rates are exact to one decimal. Pure.
 */
import { type ObservedRates, observedRates } from './observed-rates';
import { sumRollups } from './rollup';
import { average, epochSeconds, errorCount, groupBy, type ScopedRollup } from './rollup-figures';

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

/** A usage row: the counts, and the rates and cache share the node's own figures give. */
export type UsageRowWithRates = UsageRow & ObservedRates;

/** One node over the window: its requests, rates and cache share, every model and day summed. */
export interface NodeUsage extends ObservedRates {
  readonly node_id: string;
  readonly request_count: number;
}

/** The window's per-node and fleet-wide figures. */
export interface UsageTotals {
  /** By node id. */
  readonly nodes: readonly NodeUsage[];
  /** Every node's requests summed (requests that reached no node measured nothing). */
  readonly fleet: ObservedRates & { readonly request_count: number };
}

export interface UsageView extends UsageTotals {
  readonly days: number;
  readonly start_ts: number;
  readonly end_ts: number;
  readonly data: readonly UsageRowWithRates[];
}

const withNodeAndModel = (rows: readonly ScopedRollup[]) =>
  rows.filter((row) => row.nodeId !== undefined && row.model !== undefined);

/** Per node and for the fleet, the window's rows summed: exact ratios of the sums, not averages of rates. */
export function usageTotals(rows: readonly ScopedRollup[]): UsageTotals {
  const counted = withNodeAndModel(rows);
  const nodes = [...groupBy(counted, (row) => row.nodeId as string).entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([nodeId, group]): NodeUsage => {
      const rollup = sumRollups(group.map((row) => row.rollup));
      return { node_id: nodeId, request_count: rollup.counters.requests, ...observedRates(rollup) };
    });
  const fleet = sumRollups(counted.map((row) => row.rollup));
  return { nodes, fleet: { request_count: fleet.counters.requests, ...observedRates(fleet) } };
}

/** Day × node × model rows, oldest day first, then node and model by name. */
export function usageRows(rows: readonly ScopedRollup[]): UsageRowWithRates[] {
  return withNodeAndModel(rows)
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
        ...observedRates(rollup),
      };
    });
}
