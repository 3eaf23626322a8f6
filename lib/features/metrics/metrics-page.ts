/**
 * The `/metrics` page (issue 22 item 9): the all-time rollups, every instance's queues and the registry's
 * nodes, read and rendered at most once per `maxAgeMs` (5 s) per container, with one read in flight at a
 * time, so Prometheus scraping every few seconds from several replicas costs one Query of the totals and
 * one of the queue states per interval. A failed read is not kept: the next scrape tries again.
 */
import type { NodeView } from '../../core/fleet/node';
import type { QueueState } from '../../core/fleet/queue-entry';
import { renderExposition } from '../../core/metrics/exposition';
import { fleetMetrics, type NodeGauge } from '../../core/metrics/fleet-metrics';
import { mergeQueues } from '../../core/views/merge-queues';
import { queuesFromSnapshot } from '../../core/views/queues-from-snapshot';
import type { RollupReader } from '../../services/analytics/rollup-reader';
import type { FleetRegistry } from '../../services/registry/registry';

export interface MetricsDeps {
  readonly rollups: Pick<RollupReader, 'totals'>;
  readonly registry: Pick<FleetRegistry, 'snapshot'>;
  /** Every instance's queues: this instance's exact, the others' as they last published them. */
  queueView(now: number): Promise<QueueState[]>;
}

export interface MetricsPageOptions {
  readonly maxAgeMs?: number;
  readonly clock?: () => number;
}

export interface MetricsPage {
  /** The exposition, at most `maxAgeMs` old. */
  text(): Promise<string>;
}

export const METRICS_MAX_AGE_MS = 5000;

function nodeGauge(node: NodeView): NodeGauge {
  return {
    nodeId: node.id,
    status: node.status,
    draining: node.draining,
    modelsLoaded: node.status === 'offline' ? undefined : node.loaded.length,
  };
}

async function render(deps: MetricsDeps, now: number): Promise<string> {
  const [rows, snapshot, routed] = await Promise.all([
    deps.rollups.totals(),
    deps.registry.snapshot(),
    deps.queueView(now),
  ]);
  const totals = rows.flatMap((row) =>
    row.nodeId !== undefined && row.model !== undefined
      ? [{ nodeId: row.nodeId, model: row.model, rollup: row.rollup }]
      : [],
  );
  return renderExposition(
    fleetMetrics({
      totals,
      queues: mergeQueues(queuesFromSnapshot(snapshot), routed),
      nodes: snapshot.nodes.map(nodeGauge),
    }),
  );
}

export function createMetricsPage(deps: MetricsDeps, options: MetricsPageOptions = {}): MetricsPage {
  const maxAgeMs = options.maxAgeMs ?? METRICS_MAX_AGE_MS;
  const clock = options.clock ?? Date.now;
  let cached: { readonly text: string; readonly at: number } | undefined;
  let rendering: Promise<string> | undefined;
  return {
    text() {
      if (cached !== undefined && clock() - cached.at < maxAgeMs) return Promise.resolve(cached.text);
      rendering ??= render(deps, clock())
        .then((text) => {
          cached = { text, at: clock() };
          return text;
        })
        .finally(() => {
          rendering = undefined;
        });
      return rendering;
    },
  };
}
