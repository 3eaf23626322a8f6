/**
 * One routing-bench run (issue 41 item 3): a fresh router with one strategy and a fresh fleet (the same
 * seed for every strategy), the router waited on until it sees every node and its initial models, the
 * planned window replayed open-loop, and the nodes' statistics collected before both are stopped. The
 * bench process's own event-loop delay is measured too: the fleet and the client share its core, and a
 * delay there would read as the router's.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MAX_TRACE_LIMIT } from '../../lib/features/analytics/serve-traces';
import { type BenchFleet, listedFleet, simulatedFleet } from './fleet';
import { type RunMetrics, runMetrics } from './metrics';
import { sampleRouterQueue } from './queue-sampler';
import { waitForFleet } from './ready';
import { type RequestRecord, replay } from './replay';
import { type Strategy, startRouter } from './router';
import type { ScenarioNode } from './scenario';
import type { PlannedRequest } from './workload';

/** The most traces the API returns at once (lib/features/analytics/serve-traces `MAX_TRACE_LIMIT`). */
const TRACE_LIMIT = MAX_TRACE_LIMIT;

export interface RunSpec {
  readonly strategy: Strategy;
  readonly plan: readonly PlannedRequest[];
  readonly timeScale: number;
  readonly seed: number;
  /** The simulated fleet, or a user's nodes (`id=url,…`) in its place. */
  readonly fleet: { readonly simulated: readonly ScenarioNode[] } | { readonly listed: string };
  /**
   * Receives every request's record of the run (`--records`), before the figures are summed, with the
   * router's own traces of them (`GET /dashboard/api/traces`: node, score and its parts), as it returned
   * them.
   */
  readonly onRecords?: ((records: readonly RequestRecord[], traces: unknown) => void) | undefined;
  /** The models to wait for before the replay; the plan's when absent. */
  readonly models?: readonly string[] | undefined;
  /** Other traffic, started with the replay and waited for after it (the sharing scenario's batch). */
  readonly alongside?: ((routerUrl: string) => Promise<void>) | undefined;
}

export interface RunResult extends RunMetrics {
  /** The bench process's event-loop delay, p99 wall ms: high values mean the client and fleet starve. */
  readonly benchLoopDelayP99Ms: number;
}

function fleetOf(spec: RunSpec): BenchFleet {
  return 'listed' in spec.fleet
    ? listedFleet(spec.fleet.listed)
    : simulatedFleet(spec.fleet.simulated, spec.timeScale, spec.seed);
}

/** The router's latest traces, as its API returns them; the error's text when it does not answer. */
async function routerTraces(url: string): Promise<unknown> {
  try {
    const response = await fetch(`${url}/dashboard/api/traces?limit=${TRACE_LIMIT}`);
    return await response.json();
  } catch (error) {
    return { error: String(error) };
  }
}

/** Runs `spec` once and returns what it measured. */
export async function runOnce(spec: RunSpec): Promise<RunResult> {
  const fleet = fleetOf(spec);
  const router = await startRouter(spec.strategy, fleet.listed);
  try {
    await fleet.join(router.url);
    const models = spec.models ?? [...new Set(spec.plan.map((request) => request.model))];
    await waitForFleet(router.url, { loaded: fleet.expectedLoaded, models });
    fleet.resetStats();
    const sampler = sampleRouterQueue(router.url);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const others = spec.alongside?.(router.url);
    const replayed = await replay(router.url, spec.plan, { timeScale: spec.timeScale, seed: spec.seed });
    await others;
    loop.disable();
    const routerQueuePeak = await sampler.stop();
    if (spec.onRecords !== undefined) spec.onRecords(replayed.records, await routerTraces(router.url));
    const metrics = runMetrics({
      replay: replayed,
      timeScale: spec.timeScale,
      nodeStats: fleet.stats(),
      slots: fleet.slots,
      routerQueuePeak,
    });
    return { ...metrics, benchLoopDelayP99Ms: loop.percentile(99) / 1e6 };
  } finally {
    await fleet.stop();
    await router.stop();
  }
}
