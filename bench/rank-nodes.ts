/**
 * Scoring budget (ARCHITECTURE.md §6: rank 1,000 nodes in ≤ 100 µs): a 1,000-node fleet that all holds the model —
 * a third with it loaded, mixed memory, bandwidth and reported parallelism, half of the nodes busy
 * with observed latencies, a conversation pinned to one node and a prompt estimate, so every signal
 * does real work — ranked over and over: warm-up, then the median of many timed batches.
 */
import type { LoadedModel, NodeModel, NodeRecord } from '../lib/core/fleet/node';
import { buildSnapshot } from '../lib/core/fleet/snapshot';
import { type RankContext, rankNodes } from '../lib/core/scoring/rank-nodes';
import type { RoutingRequest } from '../lib/core/scoring/routing-request';
import { createLatencyStats } from '../lib/services/dispatch/latency-stats';
import { createNodeRates } from '../lib/services/dispatch/node-rates';
import { createQueueManager } from '../lib/services/dispatch/queue-manager';
import { median } from './stats';

const NODES = 1000;
const MODEL = 'qwen3:32b';
const NOW = Date.UTC(2025, 0, 1);
const GIB = 2 ** 30;

function benchRecord(index: number): NodeRecord {
  const model: NodeModel = {
    name: MODEL,
    kind: 'llm',
    size: 20_200_000_000,
    digest: 'sha256:bench',
    modifiedAt: '',
    details: {},
    capabilities: ['completion', 'tools'],
    contextLength: 40_960,
  };
  const loaded: LoadedModel = {
    name: MODEL,
    size: (22 + (index % 5)) * GIB,
    sizeVram: (22 + (index % 5)) * GIB,
    expiresAt: '',
    contextLength: index % 2 === 0 ? 8192 : 32_768,
    digest: 'sha256:bench',
    details: {},
  };
  const totalGb = [64, 96, 128, 192, 512][index % 5] ?? 64;
  return {
    id: `node-${String(index).padStart(4, '0')}`,
    source: 'agent',
    url: `http://10.0.${index >> 8}.${index & 255}:11434`,
    firstSeenAt: NOW - 60_000,
    lastSeenAt: NOW,
    draining: false,
    hardware:
      index % 4 === 0
        ? { memoryTotalGb: totalGb }
        : { memoryTotalGb: totalGb, memoryBandwidthGbps: 400 + (index % 3) * 200 },
    memory: { totalGb, usedGb: totalGb / 2, availableGb: totalGb / 2 - (index % 7), pressure: 'normal' },
    models: [model],
    loaded: index % 3 === 0 ? [loaded] : [],
    recentlyUnloaded: index % 3 === 1 ? { [MODEL]: NOW - 60_000 } : {},
    requestsActive: 0,
    numParallel: 1 + (index % 4),
    sidecars: {},
  };
}

export interface RankMeasurement {
  /** Median µs per ranking of the 1,000 nodes: what each request pays (the budget). */
  readonly microsPerRank: number;
  /**
   * Median µs of the first ranking on a fresh snapshot, which also builds that snapshot's placement
   * table (paid once per model per snapshot, i.e. at most about once a second).
   */
  readonly microsFirstRank: number;
  readonly nodes: number;
}

const THRESHOLDS = { degradedAfterMs: 15_000, offlineAfterMs: 30_000 };

export function measureRankNodes(): RankMeasurement {
  const records = Array.from({ length: NODES }, (_, index) => benchRecord(index));
  const snapshot = buildSnapshot(records, NOW, THRESHOLDS);
  // A third of the fleet busy (2 or 4 requests running): heavy load, where the load signals cost most.
  // The router's own queue manager holds the slots, so the scorer reads depths as it does in a router.
  const queues = createQueueManager();
  for (const [index, record] of records.entries()) {
    if (index % 6 === 0 || index % 2 !== 0) continue;
    for (let held = 0; held < index % 6; held += 1) void queues.acquire(record.id, MODEL, 64);
  }
  const latency = createLatencyStats();
  for (const [index, record] of records.entries()) {
    if (index % 2 === 0)
      for (let sample = 0; sample < 8; sample += 1)
        latency.recordDuration(record.id, MODEL, 2000 + index + sample * 100);
  }
  // Every other node's rates observed, as a router that has served them has (the expected time to first token).
  const rates = createNodeRates();
  for (const [index, record] of records.entries()) {
    if (index % 2 === 0) {
      rates.observe(record.id, MODEL, {
        promptTokens: 2000,
        promptEvalMs: 400 + index,
        completionTokens: 100,
        evalMs: 2500,
      });
    }
  }
  const request: RoutingRequest = {
    model: MODEL,
    fallbackModels: [],
    kind: 'chat',
    needsVision: false,
    promptTokens: 3000,
    conversationKey: 'session:bench',
  };
  const context: RankContext = { now: NOW, queues, latency, rates, pinnedNodeId: 'node-0500' };

  let sink = 0;
  for (let run = 0; run < 3000; run += 1) sink += rankNodes(snapshot, request, context).ranked.length;
  const batch = 10;
  const samples: number[] = [];
  for (let round = 0; round < 301; round += 1) {
    const started = process.hrtime.bigint();
    for (let run = 0; run < batch; run += 1) sink += rankNodes(snapshot, request, context).ranked.length;
    samples.push(Number(process.hrtime.bigint() - started) / 1000 / batch);
  }
  const firsts: number[] = [];
  for (let round = 0; round < 31; round += 1) {
    const fresh = buildSnapshot(records, NOW, THRESHOLDS);
    const started = process.hrtime.bigint();
    sink += rankNodes(fresh, request, context).ranked.length;
    firsts.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  if (sink === 0) throw new Error('rankNodes returned nothing: the benchmark measured nothing');
  return { microsPerRank: median(samples), microsFirstRank: median(firsts), nodes: NODES };
}
