/**
 * `GET /dashboard/api/overview` (issue 22 item 2; reference anchor-ollama-herd §6.3): what the page's
 * header shows — all-time totals (the reference's `total_requests`, `total_prompt_tokens`,
 * `total_completion_tokens`, `total_tokens`, `models_count`) from the all-time rollups, the last 24
 * hours from the fleet's hourly rollups (p95 ±4.4 %; the nodes' own prefill and decode rates and the
 * prompt-cache share, ./observed-rates), the nodes and models as /fleet/status counts them,
 * and the router's queues across instances. Pure: the rollups, snapshot and queues come in.
 */

import type { FleetSnapshot } from '../fleet/node';
import type { QueueEntry } from '../fleet/queue-entry';
import { toFleetStatus } from '../views/fleet-status';
import { type ObservedRates, observedRates } from './observed-rates';
import { sumRollups } from './rollup';
import { average, epochSeconds, errorCount, quantile, round1, type ScopedRollup } from './rollup-figures';

export interface OverviewView {
  readonly total_requests: number;
  readonly total_prompt_tokens: number;
  readonly total_completion_tokens: number;
  readonly total_tokens: number;
  /** Models that ever served a request. */
  readonly models_count: number;
  readonly last_24h: ObservedRates & {
    /** Epoch seconds: the 24 whole UTC hours up to and including the current one. */
    readonly since: number;
    readonly requests: number;
    readonly completed: number;
    readonly errors: number;
    readonly error_rate_pct: number | null;
    readonly avg_latency_ms: number | null;
    readonly p95_latency_ms: number | null;
    readonly avg_ttft_ms: number | null;
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly retries: number;
    readonly fallbacks: number;
  };
  readonly nodes: {
    readonly total: number;
    readonly online: number;
    readonly degraded: number;
    readonly offline: number;
  };
  readonly models_loaded: number;
  readonly models_available: number;
  /** The router's own queues, every instance: requests running on nodes and waiting for a slot. */
  readonly in_flight: number;
  readonly pending: number;
  readonly timestamp: number;
}

export interface OverviewInput {
  readonly totals: readonly ScopedRollup[];
  readonly hours: readonly ScopedRollup[];
  readonly since: number;
  readonly snapshot: FleetSnapshot;
  readonly queues: readonly QueueEntry[];
  readonly now: number;
}

export function overviewView(input: OverviewInput): OverviewView {
  const all = sumRollups(input.totals.map((row) => row.rollup)).counters;
  const day = sumRollups(input.hours.map((row) => row.rollup));
  const c = day.counters;
  const fleet = toFleetStatus(input.snapshot, [], input.now).fleet;
  const models = new Set(input.totals.filter((row) => row.rollup.counters.requests > 0).map((row) => row.model));
  return {
    total_requests: all.requests,
    total_prompt_tokens: all.prompt_tokens,
    total_completion_tokens: all.completion_tokens,
    total_tokens: all.prompt_tokens + all.completion_tokens,
    models_count: models.size,
    last_24h: {
      since: epochSeconds(input.since),
      requests: c.requests,
      completed: c.completed,
      errors: errorCount(day),
      error_rate_pct: c.requests > 0 ? round1((errorCount(day) * 100) / c.requests) : null,
      avg_latency_ms: average(c.latency_ms, c.requests),
      p95_latency_ms: quantile(day.histograms.latency_ms, 0.95),
      avg_ttft_ms: average(c.ttft_ms, c.ttft_count),
      prompt_tokens: c.prompt_tokens,
      completion_tokens: c.completion_tokens,
      retries: c.retries,
      fallbacks: c.fallbacks,
      ...observedRates(day),
    },
    nodes: {
      total: fleet.nodes_total,
      online: fleet.nodes_online,
      degraded: fleet.nodes_degraded,
      offline: fleet.nodes_offline,
    },
    models_loaded: fleet.models_loaded,
    models_available: fleet.models_available,
    in_flight: input.queues.reduce((sum, queue) => sum + queue.inFlight, 0),
    pending: input.queues.reduce((sum, queue) => sum + queue.pending, 0),
    timestamp: epochSeconds(input.now),
  };
}
