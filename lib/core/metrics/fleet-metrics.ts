/**
 * What `GET /metrics` exposes (issue 22 item 9): the all-time rollups per node × model as counters and
 * histograms, the queues and the nodes as gauges, all fleet-wide (the rollups are every instance's sums;
 * the queues every live instance's). Names follow Prometheus's conventions: `fleet_` prefix, `_total` on
 * counters, seconds for durations. Pure: it turns read data into metric families (./exposition).
 */
import type { Histogram } from '../analytics/histogram';
import type { Rollup } from '../analytics/rollup';
import type { NodeStatus } from '../fleet/node';
import type { QueueEntry } from '../fleet/queue-entry';
import { doublingBuckets } from './doubling-buckets';
import type { MetricFamily, MetricType, Sample } from './exposition';

/** One all-time rollup of a node × model (lib/services/analytics/rollup-reader `totals()`). */
export interface NodeModelTotals {
  readonly nodeId: string;
  readonly model: string;
  readonly rollup: Rollup;
}

/** A node as the gauges need it. */
export interface NodeGauge {
  readonly nodeId: string;
  readonly status: NodeStatus;
  readonly draining: boolean;
  /** Undefined for an offline node: its last report is stale, and an unknown is left out, not made 0. */
  readonly modelsLoaded: number | undefined;
}

export interface FleetMetricsInput {
  readonly totals: readonly NodeModelTotals[];
  readonly queues: readonly QueueEntry[];
  readonly nodes: readonly NodeGauge[];
}

export const NODE_STATUSES: readonly NodeStatus[] = ['online', 'degraded', 'offline'];
/** A request's final status; `retried` attempts are counted apart (they are not requests). */
const REQUEST_STATUSES = ['completed', 'failed', 'client_disconnected', 'incomplete'] as const;

function family(name: string, type: MetricType, help: string, samples: Sample[]): MetricFamily {
  return { name, type, help, samples };
}

function perNodeModel(
  totals: readonly NodeModelTotals[],
  value: (rollup: Rollup) => number,
  extra: Readonly<Record<string, string>> = {},
): Sample[] {
  return totals.map((row) => ({
    labels: { node_id: row.nodeId, model: row.model, ...extra },
    value: value(row.rollup),
  }));
}

/** A histogram in ms as a `_seconds` histogram: cumulative buckets, `_sum` and `_count`. */
function secondsHistogram(
  totals: readonly NodeModelTotals[],
  histogram: (rollup: Rollup) => Histogram,
  sumMs: (rollup: Rollup) => number,
): Sample[] {
  const samples: Sample[] = [];
  for (const row of totals) {
    const labels = { node_id: row.nodeId, model: row.model };
    const buckets = doublingBuckets(histogram(row.rollup));
    for (const bucket of buckets) {
      samples.push({ suffix: '_bucket', labels: { ...labels, le: leText(bucket.le) }, value: bucket.count });
    }
    samples.push({ suffix: '_sum', labels, value: sumMs(row.rollup) / 1000 });
    samples.push({ suffix: '_count', labels, value: buckets[buckets.length - 1]?.count ?? 0 });
  }
  return samples;
}

/** A bound in ms as seconds, written exactly (2^k − 1 ms has at most three decimals). */
function leText(ms: number): string {
  return ms === Number.POSITIVE_INFINITY ? '+Inf' : String(ms / 1000);
}

function requestFamilies(totals: readonly NodeModelTotals[]): MetricFamily[] {
  const counter = (name: string, help: string, value: (rollup: Rollup) => number) =>
    family(name, 'counter', help, perNodeModel(totals, value));
  return [
    family(
      'fleet_requests_total',
      'counter',
      'Client requests by node, model and final status, across every router instance.',
      REQUEST_STATUSES.flatMap((status) => perNodeModel(totals, (rollup) => rollup.counters[status], { status })),
    ),
    counter(
      'fleet_retried_attempts_total',
      'Attempts that failed on a node and were retried elsewhere.',
      (r) => r.counters.retried,
    ),
    counter('fleet_retries_total', 'Retries summed over requests.', (r) => r.counters.retries),
    counter('fleet_fallbacks_total', 'Requests answered by a fallback model.', (r) => r.counters.fallbacks),
    counter('fleet_prompt_tokens_total', 'Prompt tokens of requests.', (r) => r.counters.prompt_tokens),
    counter('fleet_completion_tokens_total', 'Completion tokens of requests.', (r) => r.counters.completion_tokens),
    counter('fleet_cold_loads_total', 'Requests whose node loaded the model first.', (r) => r.counters.cold_loads),
    family(
      'fleet_request_duration_seconds',
      'histogram',
      'Request latency; buckets end at 2^k - 1 ms and are exact for the whole milliseconds counted.',
      secondsHistogram(
        totals,
        (r) => r.histograms.latency_ms,
        (r) => r.counters.latency_ms,
      ),
    ),
    family(
      'fleet_time_to_first_token_seconds',
      'histogram',
      'Time to first token, of requests that have one; buckets as fleet_request_duration_seconds.',
      secondsHistogram(
        totals,
        (r) => r.histograms.ttft_ms,
        (r) => r.counters.ttft_ms,
      ),
    ),
  ];
}

function queueFamilies(queues: readonly QueueEntry[]): MetricFamily[] {
  const gauge = (name: string, help: string, value: (queue: QueueEntry) => number) =>
    family(
      name,
      'gauge',
      help,
      queues.map((queue) => ({ labels: { node_id: queue.nodeId, model: queue.model }, value: value(queue) })),
    );
  return [
    gauge('fleet_queue_pending', 'Requests waiting for a slot, per node:model, across instances.', (q) => q.pending),
    gauge(
      'fleet_queue_in_flight',
      'Requests running on the node, per node:model, across instances.',
      (q) => q.inFlight,
    ),
    gauge('fleet_queue_concurrency', 'Requests the node runs at once for the model.', (q) => q.concurrency),
  ];
}

function nodeFamilies(nodes: readonly NodeGauge[]): MetricFamily[] {
  return [
    family(
      'fleet_node_status',
      'gauge',
      'A node status: 1 for the state it is in, 0 for the others.',
      nodes.flatMap((node) =>
        NODE_STATUSES.map((status) => ({
          labels: { node_id: node.nodeId, status },
          value: node.status === status ? 1 : 0,
        })),
      ),
    ),
    family(
      'fleet_nodes',
      'gauge',
      'Nodes by status.',
      NODE_STATUSES.map((status) => ({
        labels: { status },
        value: nodes.filter((node) => node.status === status).length,
      })),
    ),
    family(
      'fleet_node_draining',
      'gauge',
      '1 while a node is draining (takes no new work).',
      nodes.map((node) => ({ labels: { node_id: node.nodeId }, value: node.draining ? 1 : 0 })),
    ),
    family(
      'fleet_node_models_loaded',
      'gauge',
      'Models a node holds loaded in memory (nodes not offline).',
      nodes.flatMap((node) =>
        node.modelsLoaded === undefined ? [] : [{ labels: { node_id: node.nodeId }, value: node.modelsLoaded }],
      ),
    ),
  ];
}

export function fleetMetrics(input: FleetMetricsInput): MetricFamily[] {
  return [...requestFamilies(input.totals), ...queueFamilies(input.queues), ...nodeFamilies(input.nodes)];
}
