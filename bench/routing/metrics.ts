/**
 * What one routing-bench run measured, in trace time (issue 41 item 3): wall times are multiplied by the
 * time scale, so a run compressed 4× reports the latencies the uncompressed fleet would have. Latencies are
 * of answered requests; output tokens per second are the fleet's, over the replay's span (first arrival to
 * the last stream's end). Node-side figures (cold loads, cache share, node queues, utilisation) come from
 * the simulated nodes and are undefined on a user's own fleet — except the cache share, taken there from
 * the usage the router returns when it reports cached prompt tokens for every answer.
 */
import type { TurnKind } from './conversations';
import type { NodeStats } from './fleet';
import { percentile, quantiles } from './percentile';
import type { ReplayResult } from './replay';

export interface NodeUse {
  readonly node: string;
  /** Requests the router sent it (X-Fleet-Node). */
  readonly requests: number;
  /** Share of the run the node was running anything (busyMs / span); undefined when unknown. */
  readonly busy: number | undefined;
  /** Share of its slots in use over the run (slotMs / (span × slots)); undefined when unknown. */
  readonly slots: number | undefined;
}

export interface RunMetrics {
  readonly requests: number;
  readonly ok: number;
  readonly refused: number;
  readonly failed: number;
  readonly ttftP50: number;
  readonly ttftP95: number;
  readonly ttftP99: number;
  readonly e2eP50: number;
  readonly e2eP95: number;
  readonly outputTokensPerSecond: number;
  readonly coldLoads: number | undefined;
  /** Cached prompt tokens / prompt tokens, over all nodes. */
  readonly cacheShare: number | undefined;
  /** Requests that waited for a slot on a node. */
  readonly queuedOnNodes: number | undefined;
  /** The most requests pending in the router's queues at once (sampled from /fleet/queue). */
  readonly routerQueuePeak: number;
  /** Mean slot utilisation over the nodes. */
  readonly utilisation: number | undefined;
  readonly nodes: readonly NodeUse[];
  /** The answers' token counts matched what each request asked for. */
  readonly answersExact: boolean;
  readonly turns: Readonly<Record<TurnKind, number>>;
  /** 99th percentile of how late the replay sent a request, wall ms (the client's own delay). */
  readonly lateP99WallMs: number;
  /** Up to three distinct errors of refused or failed requests, for the report. */
  readonly errors: readonly string[];
  /** TTFT CDF (101 quantiles, trace ms), for the charts. */
  readonly ttftCdf: readonly number[];
}

export interface RunInputs {
  readonly replay: ReplayResult;
  readonly timeScale: number;
  readonly nodeStats: ReadonlyMap<string, NodeStats> | undefined;
  readonly slots: ReadonlyMap<string, number>;
  readonly routerQueuePeak: number;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** Cache share from the usage the router returned, when it reported cached tokens for every answer. */
function usageCacheShare(records: ReplayResult['records']): number | undefined {
  let prompt = 0;
  let cached = 0;
  for (const record of records) {
    if (record.cachedTokens === undefined || record.usagePromptTokens === undefined) return undefined;
    prompt += record.usagePromptTokens;
    cached += record.cachedTokens;
  }
  return prompt === 0 ? undefined : cached / prompt;
}

function nodeUse(inputs: RunInputs, counts: ReadonlyMap<string, number>): NodeUse[] {
  const ids = new Set([...counts.keys(), ...(inputs.nodeStats?.keys() ?? [])]);
  const span = inputs.replay.wallMs;
  return [...ids].sort().map((node) => {
    const stats = inputs.nodeStats?.get(node);
    const slots = inputs.slots.get(node);
    return {
      node,
      requests: counts.get(node) ?? 0,
      busy: stats === undefined ? undefined : stats.busyMs / span,
      slots: stats === undefined || slots === undefined ? undefined : stats.slotMs / (span * slots),
    };
  });
}

/** The metrics of one run. */
export function runMetrics(inputs: RunInputs): RunMetrics {
  const { records } = inputs.replay;
  const scale = inputs.timeScale;
  const ok = records.filter((record) => record.status === 'ok');
  const ttft = ok.flatMap((record) => (record.ttftMs === undefined ? [] : [record.ttftMs * scale]));
  const e2e = ok.map((record) => record.e2eMs * scale);
  const counts = new Map<string, number>();
  for (const record of ok) {
    if (record.node !== undefined) counts.set(record.node, (counts.get(record.node) ?? 0) + 1);
  }
  const stats = inputs.nodeStats === undefined ? undefined : [...inputs.nodeStats.values()];
  const promptTokens = stats === undefined ? 0 : sum(stats.map((node) => node.promptTokens));
  const nodes = nodeUse(inputs, counts);
  const slotShares = nodes.flatMap((node) => (node.slots === undefined ? [] : [node.slots]));
  return {
    requests: records.length,
    ok: ok.length,
    refused: records.filter((record) => record.status === 'refused').length,
    failed: records.filter((record) => record.status === 'failed').length,
    ttftP50: percentile(ttft, 50),
    ttftP95: percentile(ttft, 95),
    ttftP99: percentile(ttft, 99),
    e2eP50: percentile(e2e, 50),
    e2eP95: percentile(e2e, 95),
    outputTokensPerSecond: sum(ok.map((record) => record.outputTokens)) / ((inputs.replay.wallMs * scale) / 1000),
    coldLoads: stats === undefined ? undefined : sum(stats.map((node) => node.coldLoads)),
    cacheShare:
      stats === undefined || promptTokens === 0
        ? usageCacheShare(ok)
        : sum(stats.map((node) => node.cachedTokens)) / promptTokens,
    queuedOnNodes: stats === undefined ? undefined : sum(stats.map((node) => node.waited)),
    routerQueuePeak: inputs.routerQueuePeak,
    utilisation: slotShares.length === 0 ? undefined : sum(slotShares) / slotShares.length,
    nodes,
    answersExact: ok.every((record) => record.outputTokens === record.askedTokens),
    turns: inputs.replay.turns,
    lateP99WallMs: percentile(
      records.map((record) => record.lateMs),
      99,
    ),
    errors: [...new Set(records.flatMap((record) => (record.error === undefined ? [] : [record.error])))].slice(0, 3),
    ttftCdf: quantiles(ttft),
  };
}
