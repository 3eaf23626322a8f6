/**
 * The request-time half of scoring (issue: routing items 1, 2 and 4): queue depth, expected wait and
 * conversation affinity. They are 0 on an idle, unpinned node, so they are computed only for the few
 * nodes the queues report busy and the one the conversation is pinned to — found through the table's
 * index, never by a scan of the fleet — with the same signal functions that explain a decision. Pure.
 */

import { type ConcurrencyOverrides, concurrencyLimit } from './concurrency-limit';
import type { LatencyLookup, LatencyWindow } from './latency-lookup';
import type { EliminationProfile, PlacementTable } from './placement-table';
import { affinityPoints, queuePoints, type SignalInput, waitPoints } from './signals';

/** What the scorer reads from the queues: pending + in flight per node:model. */
export interface QueueDepths {
  depth(nodeId: string, model: string): number;
  /** Visits every node with requests queued or running on `model` (depth > 0). */
  forEachBusy(model: string, visit: (nodeId: string, depth: number) => void): void;
}

export interface LoadContext {
  readonly now: number;
  readonly queues: QueueDepths;
  readonly latency?: LatencyLookup | undefined;
  readonly pinnedNodeId?: string | undefined;
  readonly concurrencyOverrides?: ConcurrencyOverrides | undefined;
}

/**
 * Per placement index; the points are zero wherever the node is idle and unpinned. Beside them, the
 * latency windows found so far (kept from ranking to ranking, never cleared by `clearLoad`).
 */
export interface LoadPoints {
  readonly depth: Int32Array;
  readonly queue: Float64Array;
  readonly wait: Float64Array;
  readonly session: Float64Array;
  readonly windows: WindowCache;
}

/**
 * The duration windows of `lookup` found so far, by placement index. A window never changes once it
 * exists (./latency-stats), so each busy node's is looked up once per table, not two map reads per
 * ranking; an index without one yet is looked up again next time.
 */
interface WindowCache {
  lookup: LatencyLookup | undefined;
  readonly byIndex: (LatencyWindow | undefined)[];
}

export interface Load {
  readonly points: LoadPoints;
  /** The indexes written, for `clearLoad`. */
  readonly touched: readonly number[];
}

/** Zeroed arrays sized for a table; ./placement-table keeps one set per table and lends it to each ranking. */
export function emptyLoadPoints(size: number): LoadPoints {
  return {
    depth: new Int32Array(size),
    queue: new Float64Array(size),
    wait: new Float64Array(size),
    session: new Float64Array(size),
    windows: { lookup: undefined, byIndex: new Array<LatencyWindow | undefined>(size).fill(undefined) },
  };
}

/**
 * Writes the load signals of busy and pinned nodes into the table's scratch arrays (no allocation per
 * request; everywhere else they stay 0); undefined when every node is idle and none is pinned. The
 * caller must `clearLoad` before its ranking returns (rankings are synchronous, so one set of arrays
 * serves them all).
 */
export function loadPoints(table: PlacementTable, profile: EliminationProfile, context: LoadContext): Load | undefined {
  const points = table.scratch;
  const touched: number[] = [];
  for (const [name, byNode] of table.indexOf) {
    context.queues.forEachBusy(name, (nodeId, nodeDepth) => {
      const index = byNode.get(nodeId);
      if (index === undefined || nodeDepth <= 0) return;
      points.depth[index] = nodeDepth;
      touched.push(index);
    });
    const pinned = context.pinnedNodeId === undefined ? undefined : byNode.get(context.pinnedNodeId);
    if (pinned !== undefined) touched.push(pinned);
  }
  if (touched.length === 0) return undefined;
  for (const index of touched) {
    if (profile.out[index] === 1) continue;
    const nodeDepth = points.depth[index] ?? 0;
    const nodeId = table.nodeIds[index] ?? '';
    const limit = limitAt(table, index, context.concurrencyOverrides);
    points.queue[index] = queuePoints(nodeDepth, limit);
    points.wait[index] = waitPoints(nodeDepth, limit, latencyAt(table, index, nodeDepth, limit, context));
    points.session[index] = context.pinnedNodeId === nodeId ? affinityPoints(nodeDepth) : 0;
  }
  return { points, touched };
}

/** Returns the scratch arrays to all zeros. */
export function clearLoad(load: Load): void {
  for (const index of load.touched) {
    load.points.depth[index] = 0;
    load.points.queue[index] = 0;
    load.points.wait[index] = 0;
    load.points.session[index] = 0;
  }
}

function limitAt(table: PlacementTable, index: number, overrides: ConcurrencyOverrides | undefined): number {
  return concurrencyLimit({ id: table.nodeIds[index] ?? '', numParallel: table.numParallel[index] ?? 1 }, overrides);
}

/** Only a request that would wait needs the observed latency (./signals `waitPoints`). */
function latencyAt(table: PlacementTable, index: number, depth: number, limit: number, context: LoadContext) {
  const lookup = context.latency;
  if (depth < limit || lookup === undefined) return undefined;
  const cache = table.scratch.windows;
  if (cache.lookup !== lookup) {
    cache.lookup = lookup;
    cache.byIndex.fill(undefined);
  }
  let window = cache.byIndex[index];
  if (window === undefined) {
    window = lookup.durationWindow(table.nodeIds[index] ?? '', table.names[index] ?? '');
    if (window === undefined) return undefined;
    cache.byIndex[index] = window;
  }
  return window.p75;
}

/** The full signal input for one placement (also what a ranked candidate is explained from). */
export function loadInput(
  table: PlacementTable,
  index: number,
  depth: number,
  promptTokens: number | undefined,
  context: LoadContext,
): SignalInput {
  const placement = table.placements[index];
  if (placement === undefined) throw new RangeError(`no placement at ${index}`);
  const nodeId = table.nodeIds[index] ?? '';
  const limit = limitAt(table, index, context.concurrencyOverrides);
  return {
    node: placement.node,
    placement,
    model: table.names[index] ?? '',
    resident: table.resident[index] ?? 0,
    depth,
    limit,
    p75Ms: latencyAt(table, index, depth, limit, context),
    promptTokens,
    pinned: context.pinnedNodeId !== undefined && context.pinnedNodeId === nodeId,
    now: context.now,
  };
}
