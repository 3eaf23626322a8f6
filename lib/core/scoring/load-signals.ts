/**
 * The request-time half of scoring (issue: routing items 1, 2 and 4; issue 41): queue depth, the wait
 * for a slot, the prompt's sharing of a busy GPU, conversation affinity and the prompt the pinned node
 * may still hold. They are 0 on an idle, unpinned node, so they are computed only for the few nodes the
 * queues report busy and the one the conversation is pinned to — found through the table's index, never
 * by a scan of the fleet — with the same signal functions that explain a decision. The rest of the
 * expected time to first token (load, prefill at each node's rate) is per placement: `ttftParts`. Pure.
 */

import { type ConcurrencyOverrides, concurrencyLimit } from './concurrency-limit';
import type { LatencyLookup, LatencyWindow } from './latency-lookup';
import type { ObservedRates, PriorScale, Priors, RateLookup } from './observed-rates';
import type { EliminationProfile, PlacementTable } from './placement-table';
import {
  affinityPoints,
  prefillMs,
  prefillSlowdown,
  queuePoints,
  runnerSharing,
  type SignalInput,
  slotWaitMs,
  type TtftParts,
} from './signals';

/** What the scorer reads from the queues: pending + in flight per node:model. */
export interface QueueDepths {
  depth(nodeId: string, model: string): number;
  /** Visits every node with requests queued or running on `model` (depth > 0). */
  forEachBusy(model: string, visit: (nodeId: string, depth: number) => void): void;
  /**
   * Visits every busy node:model, whatever the model: where another model's runner shares a node's GPU
   * with the one ranked. Absent: only the ranked model's own load counts.
   */
  forEachBusyModel?(visit: (model: string, nodeId: string, depth: number) => void): void;
}

export interface LoadContext {
  readonly now: number;
  readonly queues: QueueDepths;
  readonly latency?: LatencyLookup | undefined;
  readonly pinnedNodeId?: string | undefined;
  readonly concurrencyOverrides?: ConcurrencyOverrides | undefined;
  /** The nodes' observed prefill rates and load times (lib/services/dispatch/node-rates). */
  readonly rates?: RateLookup | undefined;
  /**
   * A conversation that goes on: the prompt tokens of its earlier turns, and the chance that a node still
   * holds them (lib/services/dispatch/prefix-residency), asked for the pinned node only.
   */
  readonly prefix?: PrefixHint | undefined;
  /**
   * The prompts each node is still evaluating (lib/services/dispatch/prefill-ledger): what slows a
   * newcomer's prompt there. Absent: the slowdown is guessed from the queue depth (./signals `prefillSlowdown`).
   */
  readonly prefill?: PrefillBacklog | undefined;
}

export interface PrefillBacklog {
  /**
   * Prompt tokens the node:model still has to evaluate beside a newcomer of `tokens`, sharing its prefill
   * rate `prefillTps` evenly: Σ min(left, `tokens`) over the prompts it holds — what the newcomer waits
   * for beyond its own.
   */
  ahead(nodeId: string, model: string, tokens: number, prefillTps: number, now: number): number;
}

export interface PrefixHint {
  readonly tokens: number;
  /** The chance the node holds them; undefined when this instance knows nothing of the conversation. */
  likelihood(nodeId: string, model: string, slots: number): number | undefined;
}

/**
 * Per placement index; the points are zero wherever the node is idle and unpinned. Beside them, the
 * latency windows found so far (kept from ranking to ranking, never cleared by `clearLoad`).
 */
export interface LoadPoints {
  readonly depth: Int32Array;
  readonly queue: Float64Array;
  /** Ms until a slot frees (./signals `slotWaitMs`). */
  readonly waitMs: Float64Array;
  /** How much slower a prompt is evaluated here beside the requests running (./signals `prefillSlowdown`). */
  readonly slowdown: Float64Array;
  /** Prompt tokens this node likely still holds for the conversation (the pinned node only). */
  readonly cached: Float64Array;
  readonly session: Float64Array;
  readonly windows: WindowCache;
  readonly rates: RateCache;
}

/**
 * The observed rates of each placement found so far: like the latency windows, a node:model's rates are
 * one object for good once observed, so it is looked up once per table; misses are looked up again only
 * when the store has observed a new node:model since (its `version`).
 */
const UNSCALED: PriorScale = { prefill: 1, load: 1 };

interface RateCache {
  lookup: RateLookup | undefined;
  version: number;
  readonly byIndex: (ObservedRates | undefined)[];
  /** The lookup's prior scale as of this ranking: read once, not once per placement. */
  scale: PriorScale;
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
    waitMs: new Float64Array(size),
    slowdown: new Float64Array(size),
    cached: new Float64Array(size),
    session: new Float64Array(size),
    windows: { lookup: undefined, byIndex: new Array<LatencyWindow | undefined>(size).fill(undefined) },
    rates: {
      lookup: undefined,
      version: -1,
      byIndex: new Array<ObservedRates | undefined>(size).fill(undefined),
      scale: UNSCALED,
    },
  };
}

/**
 * Writes the load signals of busy and pinned nodes into the table's scratch arrays (no allocation per
 * request; everywhere else they stay 0); undefined when every node is idle and none is pinned. The
 * caller must `clearLoad` before its ranking returns (rankings are synchronous, so one set of arrays
 * serves them all).
 */
export function loadPoints(
  table: PlacementTable,
  profile: EliminationProfile,
  context: LoadContext,
  promptTokens = 0,
): Load | undefined {
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
  const runners = otherRunners(table, context.queues, touched);
  if (touched.length === 0) return undefined;
  const rates = context.prefill === undefined ? undefined : ratesByIndex(table, context.rates);
  for (const index of touched) {
    if (profile.out[index] === 1) continue;
    const nodeDepth = points.depth[index] ?? 0;
    const nodeId = table.nodeIds[index] ?? '';
    const limit = limitAt(table, index, context.concurrencyOverrides);
    points.queue[index] = queuePoints(nodeDepth, limit);
    const window = windowAt(table, index, nodeDepth, limit, context);
    points.waitMs[index] = slotWaitMs(nodeDepth, limit, window?.p75, window?.waitPerPlaceMs);
    const pinned = context.pinnedNodeId === nodeId;
    const held = pinned ? heldAt(table, index, limit, context) : undefined;
    points.session[index] = pinned ? affinityPoints(nodeDepth, held) : 0;
    points.cached[index] = held === undefined ? 0 : cachedTokens(held, context);
    const evaluates = Math.max(0, promptTokens - (points.cached[index] ?? 0));
    const shared =
      rates === undefined
        ? prefillSlowdown(nodeDepth, limit)
        : sharedPrefill(table, index, nodeDepth, evaluates, rates[index], context);
    points.slowdown[index] = shared + runnerSharing(runners?.get(index) ?? 0);
  }
  return { points, touched };
}

/**
 * How much slower than alone a prompt of `evaluates` tokens runs here beside the prompts the node is still
 * evaluating: their tokens ahead of it over its own (the ledger's; without one the depth stands in).
 */
function sharedPrefill(
  table: PlacementTable,
  index: number,
  depth: number,
  evaluates: number,
  observed: ObservedRates | undefined,
  context: LoadContext,
): number {
  const backlog = context.prefill;
  if (backlog === undefined || evaluates <= 0 || depth <= 0) return 0;
  const tps = prefillTpsAt(table, index, observed);
  const ahead = backlog.ahead(table.nodeIds[index] ?? '', table.names[index] ?? '', evaluates, tps, context.now);
  return ahead / evaluates;
}

/**
 * Per placement index, how many other models have requests on its node (each a runner taking turns on the
 * GPU); the indexes found are added to `touched`. Undefined when no other model is busy anywhere.
 */
function otherRunners(table: PlacementTable, queues: QueueDepths, touched: number[]): Map<number, number> | undefined {
  if (queues.forEachBusyModel === undefined) return undefined;
  let runners: Map<number, number> | undefined;
  queues.forEachBusyModel((model, nodeId, depth) => {
    if (depth <= 0 || table.indexOf.has(model)) return;
    for (const byNode of table.indexOf.values()) {
      const index = byNode.get(nodeId);
      if (index === undefined) continue;
      runners ??= new Map();
      const count = runners.get(index);
      if (count === undefined) touched.push(index);
      runners.set(index, (count ?? 0) + 1);
    }
  });
  return runners;
}

/** Returns the scratch arrays to all zeros. */
export function clearLoad(load: Load): void {
  for (const index of load.touched) {
    load.points.depth[index] = 0;
    load.points.queue[index] = 0;
    load.points.waitMs[index] = 0;
    load.points.slowdown[index] = 0;
    load.points.cached[index] = 0;
    load.points.session[index] = 0;
  }
}

function limitAt(table: PlacementTable, index: number, overrides: ConcurrencyOverrides | undefined): number {
  return concurrencyLimit({ id: table.nodeIds[index] ?? '', numParallel: table.numParallel[index] ?? 1 }, overrides);
}

/** Only a request that would wait needs the observed latency (./signals `slotWaitMs`). */
function windowAt(table: PlacementTable, index: number, depth: number, limit: number, context: LoadContext) {
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
  return window;
}

/** Observed p75 duration at a placement, when a request would wait there. */
function latencyAt(table: PlacementTable, index: number, depth: number, limit: number, context: LoadContext) {
  return windowAt(table, index, depth, limit, context)?.p75;
}

/**
 * The chance that the pinned node still holds the conversation's earlier turns; undefined when the request
 * carries no prefix to hold, the caches are not tracked, or this instance knows nothing of the
 * conversation (its pin came from another instance through the table): then the pin alone speaks.
 */
function heldAt(table: PlacementTable, index: number, limit: number, context: LoadContext): number | undefined {
  const prefix = context.prefix;
  if (prefix === undefined || prefix.tokens <= 0) return undefined;
  const chance = prefix.likelihood(table.nodeIds[index] ?? '', table.names[index] ?? '', limit);
  return chance === undefined ? undefined : Math.min(1, Math.max(0, chance));
}

/** Prompt tokens the pinned node likely still holds: the earlier turns' tokens × the chance it does. */
function cachedTokens(held: number, context: LoadContext): number {
  const tokens = context.prefix?.tokens ?? 0;
  return held > 0 ? tokens * held : 0;
}

/**
 * The observed rates of every placement, refreshed for misses when the store has seen a new node:model
 * (the array is the table's, kept from ranking to ranking).
 */
export function ratesByIndex(table: PlacementTable, lookup: RateLookup | undefined): (ObservedRates | undefined)[] {
  const cache = table.scratch.rates;
  if (lookup === undefined) {
    if (cache.lookup !== undefined) {
      cache.byIndex.fill(undefined);
      cache.lookup = undefined;
      cache.version = -1;
      cache.scale = UNSCALED;
    }
    return cache.byIndex;
  }
  cache.scale = lookup.priorScale ?? UNSCALED;
  if (cache.lookup !== lookup) {
    cache.lookup = lookup;
    cache.version = -1;
    cache.byIndex.fill(undefined);
  }
  if (cache.version !== lookup.version) {
    cache.version = lookup.version;
    for (let index = 0; index < cache.byIndex.length; index += 1) {
      if (cache.byIndex[index] === undefined) {
        cache.byIndex[index] = lookup.ratesOf(table.nodeIds[index] ?? '', table.names[index] ?? '');
      }
    }
  }
  return cache.byIndex;
}

/**
 * Ms to load the model here: 0 where it is loaded, else the node's last cold load of it (else the prior
 * from its size), plus what unloading other models to make room costs (./placement-table `evictMs`).
 */
export function loadMsAt(table: PlacementTable, index: number, observed: ObservedRates | undefined): number {
  const prior = table.coldLoadMs[index] ?? 0;
  if (prior <= 0) return 0;
  const scale = priorScaleOf(table).load;
  return (observed?.loadMs ?? prior * scale) + (table.evictMs[index] ?? 0) * scale;
}

/**
 * The prefill rate to expect here: observed, else the prior from the node's hardware, scaled as the
 * observed nodes ran against theirs.
 */
export function prefillTpsAt(table: PlacementTable, index: number, observed: ObservedRates | undefined): number {
  return observed?.prefillTps ?? (table.priorPrefillTps[index] ?? 0) * priorScaleOf(table).prefill;
}

/** How the observed nodes ran against their priors, as ./ratesByIndex last read it for this ranking. */
function priorScaleOf(table: PlacementTable): PriorScale {
  return table.scratch.rates.scale;
}

/** What a ranking expected of a placement before observing it: the priors its rates are judged against. */
export function priorsAt(table: PlacementTable, index: number): Priors {
  return { prefillTps: table.priorPrefillTps[index] ?? 0, loadMs: table.coldLoadMs[index] ?? 0 };
}

/**
 * The expected time to first token at one placement, by part: what ./rank-nodes sums for every placement,
 * with the load arrays (zero on idle, unpinned nodes) and the rates found for it.
 */
export function ttftParts(
  table: PlacementTable,
  index: number,
  promptTokens: number,
  waitMs: number,
  slowdown: number,
  cached: number,
  observed: ObservedRates | undefined,
): TtftParts {
  return {
    waitMs,
    loadMs: loadMsAt(table, index, observed),
    prefillMs: prefillMs(Math.max(0, promptTokens - cached), prefillTpsAt(table, index, observed), slowdown),
  };
}

/** The full signal input for one placement (also what a ranked candidate is explained from). */
export function loadInput(
  table: PlacementTable,
  index: number,
  depth: number,
  tokens: { readonly need: number | undefined; readonly prompt: number },
  context: LoadContext,
): SignalInput {
  const placement = table.placements[index];
  if (placement === undefined) throw new RangeError(`no placement at ${index}`);
  const nodeId = table.nodeIds[index] ?? '';
  const limit = limitAt(table, index, context.concurrencyOverrides);
  const p75Ms = latencyAt(table, index, depth, limit, context);
  const pinned = context.pinnedNodeId !== undefined && context.pinnedNodeId === nodeId;
  const observed = ratesByIndex(table, context.rates)[index];
  // The wait, slowdown and cached prefix are the ranking's own figures (./loadPoints), read, not worked out again.
  const { waitMs, slowdown, cached } = table.scratch;
  const ttft = ttftParts(
    table,
    index,
    tokens.prompt,
    waitMs[index] ?? 0,
    slowdown[index] ?? 0,
    cached[index] ?? 0,
    observed,
  );
  return {
    node: placement.node,
    placement,
    model: table.names[index] ?? '',
    resident: table.resident[index] ?? 0,
    depth,
    limit,
    p75Ms,
    ttft,
    promptTokens: tokens.need,
    pinned,
    held: pinned ? heldAt(table, index, limit, context) : undefined,
    now: context.now,
  };
}
