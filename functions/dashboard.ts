/**
 * The dashboard surface (spec §4.7, issues 22 and 23): the page itself (built from dashboard/ into
 * `page/` beside this bundle) and its API — the fleet's health; the runtime settings, read and changed; the analytics read
 * from the rollups and the recent traces; model recommendations and management; benchmark runs; the live
 * events stream; and `/metrics` for Prometheus. The handler also takes the benchmark invocations `start`
 * launches in AWS (one run each).
 */

import { join } from 'node:path';
import { serveApps, serveAppsDaily } from '../lib/features/analytics/serve-apps';
import { serveContextUsage } from '../lib/features/analytics/serve-context-usage';
import { serveModels } from '../lib/features/analytics/serve-models';
import { serveOverview } from '../lib/features/analytics/serve-overview';
import { serveTraces } from '../lib/features/analytics/serve-traces';
import { serveTrends } from '../lib/features/analytics/serve-trends';
import { serveUsage } from '../lib/features/analytics/serve-usage';
import { runBenchmark } from '../lib/features/benchmarks/run-benchmark';
import {
  type BenchmarkRoutesDeps,
  serveBenchmarkCancel,
  serveBenchmarkList,
  serveBenchmarkProgress,
  serveBenchmarkRun,
  serveBenchmarkStart,
} from '../lib/features/benchmarks/serve-benchmarks';
import { serveDashboardAsset, serveDashboardHome, serveDashboardView } from '../lib/features/dashboard-page/serve-page';
import { serveWhoami } from '../lib/features/dashboard-page/serve-whoami';
import { serveEvents } from '../lib/features/events/serve-events';
import { createHealthMonitor, type HealthMonitor } from '../lib/features/health/health-monitor';
import { serveHealth } from '../lib/features/health/serve-health';
import { createMetricsPage } from '../lib/features/metrics/metrics-page';
import { serveMetrics } from '../lib/features/metrics/serve-metrics';
import { serveDashboardDelete } from '../lib/features/model-admin/serve-dashboard-delete';
import { serveModelManagement } from '../lib/features/model-management/serve-model-management';
import { serveDashboardPull } from '../lib/features/pull/serve-dashboard-pull';
import { serveRecommendations } from '../lib/features/recommendations/serve-recommendations';
import { serveSettings, serveSettingsUpdate } from '../lib/features/settings/serve-settings';
import { getServices, handlerOptions, type Services } from '../lib/instance';
import { withBenchmarkInvocations } from '../lib/services/benchmarks/benchmark-invocation';
import { createHandler, operatorRoute, publicRoute, type RouteTable } from '../lib/services/http/handler';
import { createPageFiles, type PageFiles } from '../lib/services/page/page-files';
import { configReady } from '../lib/services/platform/config';

/**
 * The instance's health monitor (its cache outlives a request: one per container), made on first use
 * here rather than in lib/instance, so only this function's bundle carries the checks. The health route
 * and the live events stream share it.
 */
const monitors = new WeakMap<Services, HealthMonitor>();
export function healthMonitor(services: Services): HealthMonitor {
  const existing = monitors.get(services);
  if (existing !== undefined) return existing;
  const created = createHealthMonitor(services);
  monitors.set(services, created);
  return created;
}

/** A run over the instance's services: its dispatcher, traces, queues and table. */
export const runFleetBenchmark = (services: Services, runId: string): Promise<void> =>
  runBenchmark(
    {
      ...services,
      snapshot: () => services.registry.snapshot(),
      concurrencyOverrides: services.config.nodeConcurrency,
      firstByteTimeoutMs: services.config.firstByteTimeoutMs,
    },
    runId,
  );

/** The page's files beside this function's bundle (scripts/build.mjs puts them there). */
const PAGE_DIR = join(__dirname, 'page');

export const routes = (services: Services, page: PageFiles = createPageFiles(PAGE_DIR)): RouteTable => {
  const metrics = createMetricsPage(services);
  const monitor = healthMonitor(services);
  const events = {
    ...services,
    health: async () => ({ score: (await monitor.report(Date.now())).vitals.health_score }),
  };
  const benchmarks: BenchmarkRoutesDeps = {
    ...services,
    runBenchmark: (runId) => runFleetBenchmark(services, runId),
  };
  return {
    // The page: open (it holds no fleet data; it sends the key with its API calls).
    'GET /dashboard': publicRoute(serveDashboardHome),
    'GET /dashboard/{view}': publicRoute((request, response) => serveDashboardView({ page }, request, response)),
    'GET /dashboard/assets/{file}': publicRoute((request, response) =>
      serveDashboardAsset({ page }, request, response),
    ),
    'GET /dashboard/api/health': (request, response) => serveHealth({ health: monitor }, request, response),
    'GET /dashboard/api/settings': (request, response) => serveSettings(services, request, response),
    // Which role the page's key has, so it shows the changes to operators only.
    'GET /dashboard/api/whoami': (request, response) => serveWhoami(services, request, response),
    // Changes to the fleet (settings, benchmarks, pulls, deletes): operator keys only (ARCHITECTURE.md §3.10).
    'POST /dashboard/api/settings': operatorRoute((request, response) =>
      serveSettingsUpdate(services, request, response),
    ),
    // Analytics, from the rollups.
    'GET /dashboard/api/overview': (request, response) => serveOverview(services, request, response),
    'GET /dashboard/api/traces': (request, response) => serveTraces(services, request, response),
    'GET /dashboard/api/usage': (request, response) => serveUsage(services, request, response),
    'GET /dashboard/api/models': (request, response) => serveModels(services, request, response),
    'GET /dashboard/api/trends': (request, response) => serveTrends(services, request, response),
    'GET /dashboard/api/apps': (request, response) => serveApps(services, request, response),
    'GET /dashboard/api/tags': (request, response) => serveApps(services, request, response),
    'GET /dashboard/api/apps/daily': (request, response) => serveAppsDaily(services, request, response),
    'GET /dashboard/api/tags/daily': (request, response) => serveAppsDaily(services, request, response),
    'GET /dashboard/api/context-usage': (request, response) => serveContextUsage(services, request, response),
    // Benchmarks: one run fleet-wide, its progress and cancel through the table.
    'POST /dashboard/api/benchmarks/start': operatorRoute((request, response) =>
      serveBenchmarkStart(benchmarks, request, response),
    ),
    'GET /dashboard/api/benchmarks/progress': (request, response) =>
      serveBenchmarkProgress(benchmarks, request, response),
    'POST /dashboard/api/benchmarks/cancel': operatorRoute((request, response) =>
      serveBenchmarkCancel(benchmarks, request, response),
    ),
    'GET /dashboard/api/benchmarks': (request, response) => serveBenchmarkList(benchmarks, request, response),
    'GET /dashboard/api/benchmarks/{run_id}': (request, response) => serveBenchmarkRun(benchmarks, request, response),
    // The fleet's models: advice, what each node holds, pull and delete on a node.
    'GET /dashboard/api/recommendations': (request, response) => serveRecommendations(services, request, response),
    'GET /dashboard/api/model-management': (request, response) => serveModelManagement(services, request, response),
    'POST /dashboard/api/pull': operatorRoute((request, response) => serveDashboardPull(services, request, response)),
    'POST /dashboard/api/delete': operatorRoute((request, response) =>
      serveDashboardDelete(services, request, response),
    ),
    // Live and scraped.
    'GET /dashboard/events': (request, response) => serveEvents(events, {}, request, response),
    'GET /metrics': (request, response) => serveMetrics(metrics, request, response),
  };
};

export const handler = withBenchmarkInvocations(
  createHandler(() => routes(getServices()), handlerOptions),
  async (runId) => {
    await configReady();
    const services = getServices();
    await runFleetBenchmark(services, runId);
    await services.writeBehind.flush();
  },
);
