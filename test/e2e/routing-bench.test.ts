/**
 * The routing bench's machinery, CI-sized (issue 41 item 6): the same code `npm run bench:routing` runs
 * (bench/routing/bench-scenario), on two simulated nodes, a ten-second window of a small synthetic trace in
 * the Azure trace's columns, a high time scale, two strategies and one run. It checks that the machinery
 * works — every request answered with the tokens it asked for, latencies recorded, per-node counts adding
 * up, a report with a row per strategy and SVG charts — and never which strategy wins or how fast anything
 * is: the verdict comes from the bench, not from a timed assertion.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { benchScenario } from '../../bench/routing/bench-scenario';
import { renderReport } from '../../bench/routing/report';
import type { ScenarioResult } from '../../bench/routing/results';
import type { Scenario } from '../../bench/routing/scenario';

const SCENARIO: Scenario = {
  name: 'ci-two-nodes',
  title: 'Two nodes, CI-sized',
  about: 'The machinery of the routing bench on a small fleet.',
  goals: ['parity'],
  window: { startSeconds: 0, seconds: 10 },
  rateScale: 1,
  timeScale: 10,
  seed: 41,
  workload: {
    modelMix: { 'llama3.2:1b': 0.5, 'llama3.2:3b': 0.5 },
    continueShare: 0.5,
    minTurnGapSeconds: 1,
    contextTokens: 4096,
  },
  nodes: ['ci1', 'ci2'].map((id) => ({
    id,
    hardware: 'rtx-4090',
    speed: 1,
    memoryGb: 24,
    numParallel: 2,
    maxLoadedModels: 2,
    multiUserCache: false,
    models: ['llama3.2:1b', 'llama3.2:3b'],
    loaded: ['llama3.2:1b', 'llama3.2:3b'],
  })),
};

/** Twenty arrivals over ten seconds, growing prompts so later ones can continue earlier conversations. */
function syntheticTrace(): string {
  const rows = Array.from({ length: 20 }, (_, index) => {
    const seconds = (index * 0.5).toFixed(7).padStart(10, '0');
    return `2023-11-16 18:00:${seconds},${200 + index * 40},${10 + (index % 5) * 7}`;
  });
  return ['TIMESTAMP,ContextTokens,GeneratedTokens', ...rows].join('\n');
}

describe('routing bench (CI-sized)', () => {
  let directory: string;
  let result: ScenarioResult;

  beforeAll(async () => {
    // The bench pins the server and the load to separate CPUs; a test shares its host and does not.
    process.env['BENCH_PIN'] = 'false';
    directory = mkdtempSync(join(tmpdir(), 'routing-bench-'));
    const trace = join(directory, 'trace.csv');
    writeFileSync(trace, syntheticTrace());
    result = await benchScenario({
      scenario: SCENARIO,
      settings: { windowStartSeconds: 0, windowSeconds: 10, rateScale: 1, timeScale: 10, seed: 41, runs: 1 },
      strategies: ['score', 'round-robin'],
      trace,
      nodes: undefined,
    });
  }, 120_000);

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('runs every strategy once over the whole window', () => {
    expect(result.trace.requests).toBe(20);
    expect(result.strategies.map((strategy) => strategy.strategy)).toEqual(['score', 'round-robin']);
    expect(result.strategies.every((strategy) => strategy.runs.length === 1)).toBe(true);
  });

  it('answers every request with the tokens it asked for', () => {
    for (const { row } of result.strategies) {
      expect({ ok: row.ok, refused: row.refused, failed: row.failed }).toEqual({ ok: 20, refused: 0, failed: 0 });
      expect(row.answersExact).toBe(true);
    }
  });

  it('records time to first token and end-to-end latency', () => {
    for (const { row } of result.strategies) {
      for (const value of [row.ttftP50, row.ttftP95, row.ttftP99, row.e2eP50, row.e2eP95]) {
        expect(Number.isFinite(value) && value > 0).toBe(true);
      }
      expect(row.e2eP50).toBeGreaterThanOrEqual(row.ttftP50);
      expect(row.ttftCdf).toHaveLength(101);
    }
  });

  it('counts per node requests that add up to the requests answered, with node statistics', () => {
    for (const { row } of result.strategies) {
      expect(row.nodes.reduce((sum, node) => sum + node.requests, 0)).toBe(row.ok);
      expect(row.coldLoads).toBeDefined();
      expect(row.cacheShare).toBeDefined();
      expect(row.utilisation).toBeDefined();
    }
  });

  it('renders a report with a table row per strategy and SVG charts', () => {
    const report = renderReport({ scenarios: { [SCENARIO.name]: result }, compression: undefined }, 'routing');
    expect(report.markdown).toMatch(/^\| score \| /m);
    expect(report.markdown).toMatch(/^\| round-robin \| /m);
    expect(report.markdown).toContain('CC-BY 4.0');
    expect(report.charts.map((chart) => chart.name)).toEqual(['ci-two-nodes-ttft.svg', 'ci-two-nodes-cdf.svg']);
    for (const chart of report.charts) expect(chart.svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });
});
