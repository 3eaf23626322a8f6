/**
 * The routing bench's stored results (issue 41 item 3): docs/routing/results.json, the figures the report
 * is rendered from. A run of some scenarios replaces theirs and keeps the others', so `--scenario b`
 * regenerates the whole report with b measured anew.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Strategy } from './router';
import type { RunResult } from './run';
import type { Scenario } from './scenario';
import type { SharingResult } from './sharing';
import type { SummaryRow } from './summary';
import type { VerdictLine } from './verdict';

export interface Settings {
  readonly windowStartSeconds: number;
  readonly windowSeconds: number;
  readonly rateScale: number;
  readonly timeScale: number;
  readonly seed: number;
  readonly runs: number;
}

export interface StrategyResult {
  readonly strategy: Strategy;
  readonly runs: readonly RunResult[];
  readonly row: SummaryRow;
}

export interface ScenarioResult {
  readonly scenario: Scenario;
  readonly settings: Settings;
  /** The trace file as given, its window's request count and how the plan shaped it. */
  readonly trace: {
    readonly path: string;
    readonly requests: number;
    readonly traceSeconds: number;
    readonly conversations: number;
    readonly continuations: number;
    readonly clipped: number;
  };
  /** `simulated`, or the user's nodes (`id=url,…`). */
  readonly fleet: string;
  readonly strategies: readonly StrategyResult[];
  readonly skipped: readonly { readonly strategy: Strategy; readonly reason: string }[];
  readonly verdicts: readonly VerdictLine[];
  readonly ranAt: string;
  readonly wallSeconds: number;
  /** Where the parties ran (../pinning). */
  readonly pinning: string;
  /** The host's 1-minute load average when the scenario started and ended (the host is shared). */
  readonly loadAverage: readonly [number, number];
}

export interface CompressionResult {
  readonly scenario: string;
  readonly compressed: ScenarioResult;
  readonly uncompressed: ScenarioResult;
}

export interface Results {
  readonly scenarios: Readonly<Record<string, ScenarioResult>>;
  readonly compression: CompressionResult | undefined;
  /** The sharing scenarios' results (issue 43), by scenario name. */
  readonly sharing?: Readonly<Record<string, SharingResult>>;
}

/** The stored results at `path`, or none. */
export function readResults(path: string): Results {
  if (!existsSync(path)) return { scenarios: {}, compression: undefined };
  const stored = JSON.parse(readFileSync(path, 'utf8')) as Partial<Results>;
  return { scenarios: stored.scenarios ?? {}, compression: stored.compression, sharing: stored.sharing ?? {} };
}

export function writeResults(path: string, results: Results): void {
  writeFileSync(path, `${JSON.stringify(results, null, 1)}\n`);
}
