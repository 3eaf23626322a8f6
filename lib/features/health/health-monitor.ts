/**
 * The health report of this instance (issue 22 item 3): gathers what the checks read (lib/core/health
 * `HealthInputs`) — the fleet snapshot, this instance's ejections, every instance's queues, the last
 * 24 h of hourly rollups (three Queries per UTC day touched: six at most), the table's write failures —
 * runs them, and keeps the answer for `HEALTH_CACHE_MS`, with one computation in flight at a time, so a
 * page polling it (or the live events stream asking for the score) costs nothing. Write failures (this
 * instance's) and queue rejections and time-outs (every instance's, per node and model) are counted over
 * the last `WRITE_SPAN_MS` or more (./recent-counts), so an outage that ended long ago stops being reported.
 */
import { version as routerVersion } from '../../../package.json';
import type { QueueState } from '../../core/fleet/queue-entry';
import type { HealthInputs, HealthTraffic, TableWrites } from '../../core/health/health-inputs';
import { type HealthReport, healthReport } from '../../core/health/health-report';
import { sumQueues } from '../../core/health/queue-checks';
import type { RollupReader } from '../../services/analytics/rollup-reader';
import type { OutlierEjection } from '../../services/dispatch/outlier-ejection';
import type { FleetConfig } from '../../services/platform/config';
import type { FleetRegistry } from '../../services/registry/registry';
import type { RuntimeSettings } from '../../services/settings/runtime-settings';
import type { WriteBehind, WriteBehindStats } from '../../services/store/write-behind';
import { createRecentCounts } from './recent-counts';

/** How long one report is served (the reference's is 30 s; the page polls every few seconds). */
export const HEALTH_CACHE_MS = 10_000;
/** Write failures are counted over at least this long. */
export const WRITE_SPAN_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

/** What the health report reads from the instance. */
export interface HealthDeps {
  readonly registry: Pick<FleetRegistry, 'snapshot' | 'freshness'>;
  readonly routing: { readonly ejection: Pick<OutlierEjection, 'ejections'> };
  queueView(now: number): Promise<QueueState[]>;
  readonly rollups: Pick<RollupReader, 'fleetHours' | 'nodeHours' | 'modelHours'>;
  readonly writeBehind: Pick<WriteBehind, 'stats' | 'pending'>;
  readonly config: Pick<FleetConfig, 'modelMap' | 'autoRoute' | 'imageGeneration' | 'transcription'>;
  readonly settings: Pick<RuntimeSettings, 'current'>;
}

export interface HealthMonitor {
  /** The report at `now`: the cached one while it is younger than `HEALTH_CACHE_MS`. */
  report(now: number): Promise<HealthReport>;
}

const NO_TRAFFIC: HealthTraffic = { fleetHours: [], nodeHours: [], modelHours: [] };

function writeCounts(stats: WriteBehindStats): Map<string, number> {
  return new Map([
    ['writes:failedFlushes', stats.failedFlushes],
    ['writes:rejected', stats.rejected],
  ]);
}

function queueCounts(queues: readonly QueueState[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const queue of queues) {
    counts.set(`rejected:${queue.nodeId}:${queue.model}`, queue.rejected);
    counts.set(`timedOut:${queue.nodeId}:${queue.model}`, queue.timedOut);
  }
  return counts;
}

export function createHealthMonitor(deps: HealthDeps, startedAt: number = Date.now()): HealthMonitor {
  let cached: { readonly at: number; readonly report: HealthReport } | undefined;
  let inFlight: Promise<HealthReport> | undefined;
  const counts = createRecentCounts(WRITE_SPAN_MS, startedAt, writeCounts(deps.writeBehind.stats()));

  /** This instance's write failures and the fleet's queue rejections and time-outs of the last minutes. */
  const recentCounts = (now: number, queues: readonly QueueState[]) => {
    const summed = sumQueues(queues);
    const current = new Map([...writeCounts(deps.writeBehind.stats()), ...queueCounts(summed)]);
    const { deltas, spanMs } = counts.since(now, current);
    const delta = (key: string) => deltas.get(key) ?? 0;
    const writes: TableWrites = {
      failedFlushes: delta('writes:failedFlushes'),
      rejected: delta('writes:rejected'),
      pending: deps.writeBehind.pending(),
      spanMs,
      scope: 'this instance',
    };
    const recentQueues = summed.map((queue) => ({
      ...queue,
      rejected: delta(`rejected:${queue.nodeId}:${queue.model}`),
      timedOut: delta(`timedOut:${queue.nodeId}:${queue.model}`),
    }));
    return { writes, queues: recentQueues, spanMs };
  };

  const compute = async (now: number): Promise<HealthReport> => {
    const window = { startMs: now - DAY_MS, endMs: now + 1 };
    const [snapshot, queues, settings, traffic] = await Promise.all([
      deps.registry.snapshot(),
      deps.queueView(now),
      // The environment's settings while the table cannot say what an operator changed.
      deps.settings.current().catch(() => deps.config),
      Promise.all([
        deps.rollups.fleetHours(window),
        deps.rollups.nodeHours(window),
        deps.rollups.modelHours(window),
      ]).then(
        ([fleetHours, nodeHours, modelHours]) => ({ rows: { fleetHours, nodeHours, modelHours }, failed: false }),
        () => ({ rows: NO_TRAFFIC, failed: true }),
      ),
    ]);
    const recent = recentCounts(now, queues);
    const inputs: HealthInputs = {
      now,
      snapshot,
      freshness: deps.registry.freshness(),
      ejections: [...deps.routing.ejection.ejections(now).values()],
      queues: recent.queues,
      queueCountsSpanMs: recent.spanMs,
      traffic: traffic.rows,
      trafficReadFailed: traffic.failed,
      config: {
        modelMap: deps.config.modelMap,
        autoRoute: deps.config.autoRoute,
        imageGeneration: settings.imageGeneration,
        transcription: settings.transcription,
      },
      writes: recent.writes,
      routerVersion,
    };
    return healthReport(inputs);
  };

  return {
    report(now) {
      if (cached !== undefined && now - cached.at < HEALTH_CACHE_MS && now >= cached.at) {
        return Promise.resolve(cached.report);
      }
      if (inFlight !== undefined) return inFlight;
      const running = compute(now).then(
        (report) => {
          cached = { at: now, report };
          inFlight = undefined;
          return report;
        },
        (error: unknown) => {
          inFlight = undefined;
          throw error;
        },
      );
      inFlight = running;
      return running;
    },
  };
}
