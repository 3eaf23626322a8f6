/**
 * The routing report's tables (issue 41 item 3): markdown for a scenario's fleet, its strategies' median
 * rows, its per-node load and its verdicts. Pure: figures in, text out.
 */
import { formatNumber } from '../stats';
import type { ScenarioResult } from './results';
import type { ScenarioNode } from './scenario';
import type { SummaryRow } from './summary';
import type { VerdictLine } from './verdict';

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function ms(value: number): string {
  return Number.isFinite(value) ? formatNumber(value, 0) : 'n/a';
}

function optional(value: number | undefined, format: (value: number) => string): string {
  return value === undefined ? 'n/a' : format(value);
}

function percent(value: number): string {
  return `${formatNumber(value * 100, 0)} %`;
}

export function fleetTable(nodes: readonly ScenarioNode[]): string {
  return table(
    [
      'node',
      'hardware',
      'speed',
      'memory GB',
      'slots',
      'multi-user cache',
      'max loaded',
      'models on disk',
      'hot at start',
    ],
    nodes.map((node) => [
      node.id,
      node.hardware,
      `${node.speed}×`,
      String(node.memoryGb),
      String(node.numParallel),
      node.multiUserCache ? 'on' : 'off',
      String(node.maxLoadedModels),
      node.models.join(', '),
      node.loaded.length === 0 ? '—' : node.loaded.join(', '),
    ]),
  );
}

export function resultTable(result: ScenarioResult): string {
  return table(
    [
      'strategy',
      'TTFT p50 ms',
      'TTFT p95 ms',
      'TTFT p99 ms',
      'E2E p50 ms',
      'E2E p95 ms',
      'output tok/s',
      'cold loads',
      'cache share',
      'queued on nodes',
      'router queue peak',
      'refused',
      'failed',
      'slot use',
    ],
    result.strategies.map(({ strategy, row }) => [
      strategy,
      ms(row.ttftP50),
      ms(row.ttftP95),
      ms(row.ttftP99),
      ms(row.e2eP50),
      ms(row.e2eP95),
      formatNumber(row.outputTokensPerSecond, 1),
      optional(row.coldLoads, (value) => formatNumber(value, 0)),
      optional(row.cacheShare, percent),
      optional(row.queuedOnNodes, (value) => formatNumber(value, 0)),
      formatNumber(row.routerQueuePeak, 0),
      formatNumber(row.refused, 0),
      formatNumber(row.failed, 0),
      optional(row.utilisation, percent),
    ]),
  );
}

function nodeCell(row: SummaryRow, node: string): string {
  const use = row.nodes.find((candidate) => candidate.node === node);
  if (use === undefined) return '0';
  const slots = use.slots === undefined ? '' : ` · ${percent(use.slots)} slots`;
  const busy = use.busy === undefined ? '' : ` · ${percent(use.busy)} busy`;
  return `${formatNumber(use.requests, 0)}${slots}${busy}`;
}

export function nodeTable(result: ScenarioResult): string {
  const nodes = [...new Set(result.strategies.flatMap(({ row }) => row.nodes.map((use) => use.node)))].sort();
  return table(
    ['strategy', ...nodes],
    result.strategies.map(({ strategy, row }) => [strategy, ...nodes.map((node) => nodeCell(row, node))]),
  );
}

export function verdictLines(lines: readonly VerdictLine[]): string {
  return lines
    .map(
      (line) =>
        `- **${line.pass === undefined ? 'UNDECIDED' : line.pass ? 'PASS' : 'FAIL'}** (${line.goal}): ${line.text}`,
    )
    .join('\n');
}

/** Each strategy's p95 TTFT in every run, to show the spread behind the medians. */
export function spreadLine(result: ScenarioResult): string {
  return result.strategies
    .map(({ strategy, runs }) => `${strategy} ${runs.map((run) => ms(run.ttftP95)).join(' / ')}`)
    .join('; ');
}
