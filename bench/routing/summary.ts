/**
 * A strategy's row in the routing report (issue 41 item 3): the median over its runs of every figure a
 * run measured, so one unlucky run does not decide a verdict. Per-node figures are medians per node; the
 * TTFT CDF is the median of each quantile.
 */
import { median } from '../stats';
import type { NodeUse, RunMetrics } from './metrics';
import type { RunResult } from './run';

/** A run's figures, each the median over the runs; `turns` and the client's lateness are summed up apart. */
export interface SummaryRow extends Omit<RunMetrics, 'turns' | 'lateP99WallMs'> {
  readonly runs: number;
  readonly continuedAsPlanned: number;
  readonly branchedOrFresh: number;
  readonly benchLoopDelayP99Ms: number;
}

function medianOf(runs: readonly RunResult[], pick: (run: RunResult) => number): number {
  return median(runs.map(pick));
}

function optionalMedian(runs: readonly RunResult[], pick: (run: RunResult) => number | undefined) {
  const values = runs.flatMap((run) => {
    const value = pick(run);
    return value === undefined ? [] : [value];
  });
  return values.length === 0 ? undefined : median(values);
}

function nodeMedians(runs: readonly RunResult[]): NodeUse[] {
  const ids = [...new Set(runs.flatMap((run) => run.nodes.map((node) => node.node)))].sort();
  return ids.map((id) => {
    const uses = runs.flatMap((run) => run.nodes.filter((node) => node.node === id));
    return {
      node: id,
      requests: median(uses.map((use) => use.requests)),
      busy: optionalMedian(runs, (run) => run.nodes.find((node) => node.node === id)?.busy),
      slots: optionalMedian(runs, (run) => run.nodes.find((node) => node.node === id)?.slots),
    };
  });
}

/** The median row of `runs` (at least one). */
export function summarise(runs: readonly RunResult[]): SummaryRow {
  const points = runs[0]?.ttftCdf.length ?? 0;
  return {
    runs: runs.length,
    requests: medianOf(runs, (run) => run.requests),
    ok: medianOf(runs, (run) => run.ok),
    refused: medianOf(runs, (run) => run.refused),
    failed: medianOf(runs, (run) => run.failed),
    ttftP50: medianOf(runs, (run) => run.ttftP50),
    ttftP95: medianOf(runs, (run) => run.ttftP95),
    ttftP99: medianOf(runs, (run) => run.ttftP99),
    e2eP50: medianOf(runs, (run) => run.e2eP50),
    e2eP95: medianOf(runs, (run) => run.e2eP95),
    outputTokensPerSecond: medianOf(runs, (run) => run.outputTokensPerSecond),
    coldLoads: optionalMedian(runs, (run) => run.coldLoads),
    cacheShare: optionalMedian(runs, (run) => run.cacheShare),
    queuedOnNodes: optionalMedian(runs, (run) => run.queuedOnNodes),
    routerQueuePeak: medianOf(runs, (run) => run.routerQueuePeak),
    utilisation: optionalMedian(runs, (run) => run.utilisation),
    nodes: nodeMedians(runs),
    answersExact: runs.every((run) => run.answersExact),
    continuedAsPlanned: medianOf(runs, (run) => run.turns.continued),
    branchedOrFresh: medianOf(runs, (run) => run.turns.branched + run.turns.fresh),
    benchLoopDelayP99Ms: medianOf(runs, (run) => run.benchLoopDelayP99Ms),
    errors: [...new Set(runs.flatMap((run) => run.errors))].slice(0, 3),
    ttftCdf: Array.from({ length: points }, (_, index) => medianOf(runs, (run) => run.ttftCdf[index] ?? Number.NaN)),
  };
}
