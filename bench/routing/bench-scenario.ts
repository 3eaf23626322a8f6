/**
 * One scenario of the routing bench, every strategy and run (issue 41 item 3): the trace window read and
 * the workload planned once, then runs interleaved — run 1 of every strategy, then run 2 … — so a drift
 * of the machine over the bench touches every strategy alike. The same plan and seed go to every run.
 * `npm run bench:routing` and the CI-sized test (test/e2e/routing-bench.test.ts) both run this.
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pinningText } from '../pinning';
import { projectRoot } from './project-root';
import type { RequestRecord } from './replay';
import type { ScenarioResult, Settings, StrategyResult } from './results';
import { type Strategy, strategyAvailable } from './router';
import { type RunResult, runOnce } from './run';
import type { Scenario } from './scenario';
import { summarise } from './summary';
import { readTrace } from './trace';
import { verdicts } from './verdict';
import { planWorkload } from './workload';

export interface ScenarioRequest {
  readonly scenario: Scenario;
  readonly settings: Settings;
  readonly strategies: readonly Strategy[];
  /** The trace file, absolute or relative to the project's root (as the report names it). */
  readonly trace: string;
  /** A user's nodes (`id=url,…`) in place of the scenario's simulated fleet. */
  readonly nodes: string | undefined;
  /** Receives every run's request records (`--records`). */
  readonly onRecords?:
    | ((strategy: Strategy, run: number, records: readonly RequestRecord[], traces: unknown) => void)
    | undefined;
  /** Called after every run, for progress output. */
  readonly onRun?: (strategy: Strategy, run: number, result: RunResult) => void;
}

export async function benchScenario(request: ScenarioRequest): Promise<ScenarioResult> {
  const { scenario, settings } = request;
  const began = performance.now();
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const trace = await readTrace(resolve(projectRoot(), request.trace), {
    startSeconds: settings.windowStartSeconds,
    seconds: settings.windowSeconds,
    rateScale: settings.rateScale,
  });
  if (trace.length === 0) throw new Error(`the window of ${request.trace} holds no request`);
  const plan = planWorkload(trace, scenario.workload, settings.seed);
  const skipped = request.strategies
    .filter((strategy) => !strategyAvailable(strategy))
    .map((strategy) => ({ strategy, reason: 'not built (its router entry is missing)' }));
  const strategies = request.strategies.filter(strategyAvailable);
  const runs = new Map<Strategy, RunResult[]>(strategies.map((strategy) => [strategy, []]));
  const fleet = request.nodes === undefined ? { simulated: scenario.nodes } : { listed: request.nodes };
  for (let run = 1; run <= settings.runs; run++) {
    for (const strategy of strategies) {
      const onRecords = request.onRecords?.bind(undefined, strategy, run);
      const result = await runOnce({
        strategy,
        plan,
        timeScale: settings.timeScale,
        seed: settings.seed,
        fleet,
        onRecords,
      });
      runs.get(strategy)?.push(result);
      request.onRun?.(strategy, run, result);
    }
  }
  const results: StrategyResult[] = strategies.map((strategy) => {
    const done = runs.get(strategy) ?? [];
    return { strategy, runs: done, row: summarise(done) };
  });
  const rows = new Map(results.map((result) => [result.strategy, result.row]));
  return {
    scenario,
    settings,
    trace: {
      path: request.trace,
      requests: plan.length,
      traceSeconds: trace.at(-1)?.at ?? 0,
      conversations: new Set(plan.map((planned) => planned.conversation)).size,
      continuations: plan.filter((planned) => planned.turn > 1).length,
      clipped: plan.filter((planned) => planned.clipped).length,
    },
    fleet: request.nodes ?? 'simulated',
    strategies: results,
    skipped,
    verdicts: verdicts(scenario.goals, rows),
    ranAt: new Date().toISOString(),
    wallSeconds: (performance.now() - began) / 1000,
    pinning: pinningText(),
    loadAverage: [loadAtStart, loadavg()[0] ?? Number.NaN],
  };
}
