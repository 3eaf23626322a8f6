/**
 * The health report of this instance (issue 22 item 3): gathers what the checks read (lib/core/health
 * `HealthInputs`) — the fleet snapshot, this instance's ejections, every instance's queues, the last
 * 24 h of hourly rollups (three Queries per UTC day touched: six at most), the table's write failures —
 * runs them, and keeps the answer for `HEALTH_CACHE_MS`, with one computation in flight at a time, so a
 * page polling it (or the live events stream asking for the score) costs nothing. Write failures are
 * this instance's, counted since its sample at least `WRITE_SPAN_MS` old (or since it started), so an
 * outage that ended long ago stops being reported.
 */
import { version as routerVersion } from '../../../package.json';
import type { QueueState } from '../../core/fleet/queue-entry';
import type { HealthInputs, HealthTraffic, TableWrites } from '../../core/health/health-inputs';
import { type HealthReport, healthReport } from '../../core/health/health-report';
import type { RollupReader } from '../../services/analytics/rollup-reader';
import type { OutlierEjection } from '../../services/dispatch/outlier-ejection';
import type { FleetConfig } from '../../services/platform/config';
import type { FleetRegistry } from '../../services/registry/registry';
import type { RuntimeSettings } from '../../services/settings/runtime-settings';
import type { WriteBehind } from '../../services/store/write-behind';

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

interface WriteSample {
  readonly at: number;
  readonly failedFlushes: number;
  readonly rejected: number;
}

const NO_TRAFFIC: HealthTraffic = { fleetHours: [], nodeHours: [], modelHours: [] };

export function createHealthMonitor(deps: HealthDeps, startedAt: number = Date.now()): HealthMonitor {
  let cached: { readonly at: number; readonly report: HealthReport } | undefined;
  let inFlight: Promise<HealthReport> | undefined;
  const first = deps.writeBehind.stats();
  let samples: WriteSample[] = [{ at: startedAt, failedFlushes: first.failedFlushes, rejected: first.rejected }];

  /** This instance's write failures since the newest sample at least WRITE_SPAN_MS old (else the first). */
  const writesAt = (now: number): TableWrites => {
    const stats = deps.writeBehind.stats();
    const old = samples.filter((sample) => sample.at <= now - WRITE_SPAN_MS);
    const base = old[old.length - 1] ?? samples[0] ?? { at: now, failedFlushes: 0, rejected: 0 };
    samples = [...samples.filter((sample) => sample.at >= base.at), { at: now, ...stats }];
    return {
      failedFlushes: stats.failedFlushes - base.failedFlushes,
      rejected: stats.rejected - base.rejected,
      pending: deps.writeBehind.pending(),
      spanMs: now - base.at,
      scope: 'this instance',
    };
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
    const inputs: HealthInputs = {
      now,
      snapshot,
      freshness: deps.registry.freshness(),
      ejections: [...deps.routing.ejection.ejections(now).values()],
      queues,
      traffic: traffic.rows,
      trafficReadFailed: traffic.failed,
      config: {
        modelMap: deps.config.modelMap,
        autoRoute: deps.config.autoRoute,
        imageGeneration: settings.imageGeneration,
        transcription: settings.transcription,
      },
      writes: writesAt(now),
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
