/**
 * The dashboard surface (spec §4.7): the runtime settings, read and changed; benchmark runs (issue 22
 * item 6). The handler also takes the benchmark invocations `start` launches in AWS (one run each).
 */
import { runBenchmark } from '../lib/features/benchmarks/run-benchmark';
import {
  type BenchmarkRoutesDeps,
  serveBenchmarkCancel,
  serveBenchmarkList,
  serveBenchmarkProgress,
  serveBenchmarkRun,
  serveBenchmarkStart,
} from '../lib/features/benchmarks/serve-benchmarks';
import { serveSettings, serveSettingsUpdate } from '../lib/features/settings/serve-settings';
import { getServices, handlerOptions, type Services } from '../lib/instance';
import { withBenchmarkInvocations } from '../lib/services/benchmarks/benchmark-invocation';
import { createHandler, type RouteTable } from '../lib/services/http/handler';

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

const benchmarks = (services: Services): BenchmarkRoutesDeps => ({
  ...services,
  runBenchmark: (runId) => runFleetBenchmark(services, runId),
});

export const routes = (services: Services): RouteTable => ({
  'GET /dashboard/api/settings': (request, response) => serveSettings(services, request, response),
  'POST /dashboard/api/settings': (request, response) => serveSettingsUpdate(services, request, response),
  'POST /dashboard/api/benchmarks/start': (request, response) =>
    serveBenchmarkStart(benchmarks(services), request, response),
  'GET /dashboard/api/benchmarks/progress': (request, response) =>
    serveBenchmarkProgress(benchmarks(services), request, response),
  'POST /dashboard/api/benchmarks/cancel': (request, response) =>
    serveBenchmarkCancel(benchmarks(services), request, response),
  'GET /dashboard/api/benchmarks': (request, response) => serveBenchmarkList(benchmarks(services), request, response),
  'GET /dashboard/api/benchmarks/{run_id}': (request, response) =>
    serveBenchmarkRun(benchmarks(services), request, response),
});

export const handler = withBenchmarkInvocations(
  createHandler(() => routes(getServices()), handlerOptions),
  async (runId) => {
    const services = getServices();
    await runFleetBenchmark(services, runId);
    await services.writeBehind.flush();
  },
);
