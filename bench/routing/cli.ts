/**
 * The routing bench's command line (issue 41 item 3): which scenarios and strategies, how many runs, and
 * overrides of each scenario's own window, rate scale, time scale and seed; a user's nodes in place of the
 * simulated fleet; and the compression check (one scenario run again uncompressed).
 */
import { parseArgs } from 'node:util';
import { STRATEGIES, type Strategy } from './router';

export interface BenchOptions {
  /** Scenario selectors: a file name or its first letter (`a`, `b-mixed-speeds`). Empty: all. */
  readonly scenarios: readonly string[];
  readonly strategies: readonly Strategy[];
  readonly runs: number;
  readonly seed: number | undefined;
  readonly trace: string;
  readonly windowStart: number | undefined;
  readonly windowSeconds: number | undefined;
  readonly rateScale: number | undefined;
  readonly timeScale: number | undefined;
  /** `id=url,…`: replay onto these nodes instead of the simulated fleet. */
  readonly nodes: string | undefined;
  readonly out: string;
  /** A scenario to run again at time scale 1, to compare verdicts with its compressed run. */
  readonly compression: string | undefined;
  readonly compressionRuns: number;
  /** A directory for every run's request records, one JSON file per scenario, strategy and run. */
  readonly records: string | undefined;
  /** Only render the report again from the stored results. */
  readonly renderOnly: boolean;
}

export const USAGE = `npm run bench:routing -- [options]
  --scenario a,b          scenarios by letter or file name (default: all in bench/routing/scenarios)
  --strategies s1,s2      of ${STRATEGIES.join(', ')} (default: all; reference only once built)
  --runs 3                runs per strategy; the report shows medians
  --seed N                workload and fleet seed (default: the scenario's)
  --trace FILE            CSV with TIMESTAMP, ContextTokens, GeneratedTokens
  --window-start S        window offset, trace seconds (default: the scenario's)
  --window-seconds S      window length, trace seconds (default: the scenario's)
  --rate-scale X          arrival rate multiplier (default: the scenario's)
  --time-scale X          time compression of fleet and arrivals (default: the scenario's)
  --nodes id=url,...      replay onto these nodes instead of the simulated fleet (no node statistics)
  --out docs/routing.md   the report; figures go to docs/routing/ beside it
  --compression a         also run this scenario uncompressed (time scale 1) and compare verdicts
  --compression-runs 1    runs per strategy of the uncompressed replay
  --records DIR           also write every request's record (node, TTFT, sizes…) and the router's traces of each run there
  --render-only           write the report again from docs/routing/results.json, running nothing`;

function number(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name} takes a number, not "${text}"`);
  return value;
}

function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function strategies(text: string | undefined): Strategy[] {
  const names = list(text);
  if (names.length === 0) return [...STRATEGIES];
  const unknown = names.filter((name) => !(STRATEGIES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`unknown strategies ${unknown.join(', ')} (known: ${STRATEGIES.join(', ')})`);
  return names as Strategy[];
}

export function parseOptions(argv: readonly string[], defaultTrace: string): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      scenario: { type: 'string' },
      strategies: { type: 'string' },
      runs: { type: 'string' },
      seed: { type: 'string' },
      trace: { type: 'string' },
      'window-start': { type: 'string' },
      'window-seconds': { type: 'string' },
      'rate-scale': { type: 'string' },
      'time-scale': { type: 'string' },
      nodes: { type: 'string' },
      out: { type: 'string' },
      compression: { type: 'string' },
      'compression-runs': { type: 'string' },
      records: { type: 'string' },
      'render-only': { type: 'boolean' },
    },
    strict: true,
  });
  return {
    scenarios: list(values.scenario),
    strategies: strategies(values.strategies),
    runs: Math.max(1, Math.round(number(values.runs, 'runs') ?? 3)),
    seed: number(values.seed, 'seed'),
    trace: values.trace ?? defaultTrace,
    windowStart: number(values['window-start'], 'window-start'),
    windowSeconds: number(values['window-seconds'], 'window-seconds'),
    rateScale: number(values['rate-scale'], 'rate-scale'),
    timeScale: number(values['time-scale'], 'time-scale'),
    nodes: values.nodes,
    out: values.out ?? 'docs/routing.md',
    compression: values.compression,
    compressionRuns: Math.max(1, Math.round(number(values['compression-runs'], 'compression-runs') ?? 1)),
    records: values.records,
    renderOnly: values['render-only'] === true,
  };
}
