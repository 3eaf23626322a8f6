/**
 * `npm run bench:routing` (issue 41 items 3 and 6): replays a window of an inference trace through the
 * router onto a fleet, once per strategy with the same seed, for each scenario in ./scenarios, and writes
 * docs/routing.md with its charts. Results are kept in docs/routing/results.json, so running some
 * scenarios regenerates the whole report with only those measured anew. `--help` lists the flags (./cli).
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { pinning, pinningText } from '../pinning';
import { stopChildrenOnSignals, stopRunningChildren } from '../processes';
import { formatNumber } from '../stats';
import { benchScenario } from './bench-scenario';
import { type BenchOptions, parseOptions, USAGE } from './cli';
import { projectRoot } from './project-root';
import type { RequestRecord } from './replay';
import { renderReport } from './report';
import { type Results, readResults, type ScenarioResult, type Settings, writeResults } from './results';
import { loadScenario, type Scenario } from './scenario';
import { benchSharing, type SharingResult } from './sharing';
import { readTrace } from './trace';
import { planWorkload } from './workload';

const root = projectRoot();
const SCENARIO_DIR = join(root, 'bench', 'routing', 'scenarios');
const DEFAULT_TRACE = join(root, '..', 'shared', 'data', 'azure-llm-inference-2023', 'conversation.csv');

function selectScenarios(selectors: readonly string[]): Scenario[] {
  const files = readdirSync(SCENARIO_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort();
  const chosen =
    selectors.length === 0
      ? files
      : selectors.map((selector) => {
          const file = files.find((name) => basename(name, '.json') === selector || name.startsWith(`${selector}-`));
          if (file === undefined) throw new Error(`no scenario "${selector}" in ${SCENARIO_DIR}`);
          return file;
        });
  return chosen.map((file) => loadScenario(join(SCENARIO_DIR, file)));
}

function settingsOf(scenario: Scenario, options: BenchOptions, timeScale?: number, runs?: number): Settings {
  return {
    windowStartSeconds: options.windowStart ?? scenario.window.startSeconds,
    windowSeconds: options.windowSeconds ?? scenario.window.seconds,
    rateScale: options.rateScale ?? scenario.rateScale,
    timeScale: timeScale ?? options.timeScale ?? scenario.timeScale,
    seed: options.seed ?? scenario.seed,
    runs: runs ?? options.runs,
  };
}

async function measure(scenario: Scenario, options: BenchOptions, settings: Settings): Promise<ScenarioResult> {
  console.log(`\n${scenario.name}: ${scenario.title} (time scale ${settings.timeScale}, ${settings.runs} run(s))`);
  const result = await benchScenario({
    scenario,
    settings,
    strategies: options.strategies,
    trace: relative(root, resolve(options.trace)),
    nodes: options.nodes,
    onRecords:
      options.records === undefined
        ? undefined
        : (strategy, run, records, traces) =>
            writeRecords(resolve(root, options.records ?? '.'), scenario, settings, strategy, run, { records, traces }),
    onRun: (strategy, run, metrics) =>
      console.log(
        `  run ${run} ${strategy.padEnd(11)} TTFT p50 ${formatNumber(metrics.ttftP50, 0)} p95 ${formatNumber(metrics.ttftP95, 0)} ms` +
          ` · ${formatNumber(metrics.outputTokensPerSecond, 0)} tok/s · cold ${metrics.coldLoads ?? 'n/a'}` +
          ` · cache ${metrics.cacheShare === undefined ? 'n/a' : formatNumber(metrics.cacheShare * 100, 0)} %` +
          ` · slots ${metrics.utilisation === undefined ? 'n/a' : formatNumber(metrics.utilisation * 100, 0)} %` +
          ` · ok ${metrics.ok}/${metrics.requests} refused ${metrics.refused} failed ${metrics.failed}` +
          metrics.errors.map((error) => `\n    ${error}`).join(''),
      ),
  });
  for (const line of result.verdicts) {
    console.log(`  ${line.pass === undefined ? 'UNDECIDED' : line.pass ? 'PASS' : 'FAIL'} ${line.goal}: ${line.text}`);
  }
  return result;
}

/** A sharing scenario (one with a batch): its variants, once each (./sharing). */
async function measureSharing(scenario: Scenario, options: BenchOptions, settings: Settings): Promise<SharingResult> {
  console.log(`\n${scenario.name}: ${scenario.title} (time scale ${settings.timeScale}, one run per variant)`);
  const trace = await readTrace(resolve(root, options.trace), {
    startSeconds: settings.windowStartSeconds,
    seconds: settings.windowSeconds,
    rateScale: settings.rateScale,
  });
  const result = await benchSharing({
    scenario,
    plan: planWorkload(trace, scenario.workload, settings.seed),
    timeScale: settings.timeScale,
    seed: settings.seed,
    windowSeconds: settings.windowSeconds,
    onRun: (variant, figures) =>
      console.log(
        `  ${variant.padEnd(17)} interactive TTFT p50 ${formatNumber(figures.interactiveTtftP50, 0)} p95 ${formatNumber(figures.interactiveTtftP95, 0)} ms` +
          ` (${figures.interactiveOk}/${figures.interactiveRequests}) · batch ${figures.batchCompleted} done, ${figures.batchRefused} refused,` +
          ` ${formatNumber(figures.batchTokensPerSecond, 1)} tok/s`,
      ),
  });
  for (const line of result.verdicts) {
    console.log(`  ${line.pass === undefined ? 'UNDECIDED' : line.pass ? 'PASS' : 'FAIL'} ${line.goal}: ${line.text}`);
  }
  return result;
}

function writeRecords(
  dir: string,
  scenario: Scenario,
  settings: Settings,
  strategy: string,
  run: number,
  found: { readonly records: readonly RequestRecord[]; readonly traces: unknown },
): void {
  mkdirSync(dir, { recursive: true });
  const name = `${scenario.name}-ts${settings.timeScale}-${strategy}-${run}`;
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(found.records, null, 1)}\n`);
  writeFileSync(join(dir, `${name}-traces.json`), `${JSON.stringify(found.traces, null, 1)}\n`);
}

function write(out: string, results: Results): void {
  const chartDir = join(dirname(out), basename(out, '.md'));
  mkdirSync(chartDir, { recursive: true });
  writeResults(join(chartDir, 'results.json'), results);
  const report = renderReport(results, relative(dirname(out), chartDir));
  for (const chart of report.charts) writeFileSync(join(chartDir, chart.name), chart.svg);
  writeFileSync(out, report.markdown);
  console.log(`\nwrote ${relative(root, out)} and ${report.charts.length} charts in ${relative(root, chartDir)}`);
}

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    console.log(USAGE);
    return;
  }
  const options = parseOptions(process.argv.slice(2), DEFAULT_TRACE);
  stopChildrenOnSignals();
  pinning();
  console.log(pinningText());
  const out = resolve(root, options.out);
  const chartDir = join(dirname(out), basename(out, '.md'));
  const stored = readResults(join(chartDir, 'results.json'));
  const scenarios = { ...stored.scenarios };
  const sharing = { ...stored.sharing };
  let compression = stored.compression;
  if (options.renderOnly) {
    write(out, stored);
    return;
  }
  for (const scenario of selectScenarios(options.scenarios)) {
    if (scenario.batch !== undefined) {
      sharing[scenario.name] = await measureSharing(scenario, options, settingsOf(scenario, options));
      write(out, { scenarios, compression, sharing });
      continue;
    }
    const result = await measure(scenario, options, settingsOf(scenario, options));
    scenarios[scenario.name] = result;
    write(out, { scenarios, compression, sharing });
    if (options.compression !== undefined && selectScenarios([options.compression])[0]?.name === scenario.name) {
      const uncompressed = await measure(scenario, options, settingsOf(scenario, options, 1, options.compressionRuns));
      compression = { scenario: scenario.name, compressed: result, uncompressed };
      write(out, { scenarios, compression, sharing });
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  stopRunningChildren();
  process.exit(1);
});
