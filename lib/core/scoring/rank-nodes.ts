/**
 * Routing's eliminate-and-score stage (issue: routing item 1; anchor §2.1–2.3): the nodes that can
 * serve one model for one request, best first, each with its score explained, and every node
 * eliminated with its reason. Only nodes holding the model are looked at (the snapshot's `placements`
 * index). Every survivor gets a total — from the snapshot's precomputed table (./placement-table) plus
 * the few busy or pinned nodes (./load-signals) — and only the best `top` are kept (a bounded insertion,
 * no sort of the fleet) and explained with the signal functions. Ties go to the lower queue depth, then
 * more free memory, then the lower node id — never to whichever node registered first. Per request, on
 * top of the memoised eliminations: ejected nodes, and nodes whose model's own maximum context is far
 * below the prompt (`context-too-long`, ../context/context-window); `context_fit` scores the loaded
 * window against the prompt plus the answer reserve.
 * Budget: 1,000 nodes in ≤ 100 µs (ARCHITECTURE.md §6; bench/rank-nodes.ts). Pure.
 */

import { clearlyTooLong, REFUSAL_MARGIN } from '../context/context-window';
import { type Ejection, targetKey } from '../fleet/ejection';
import type { FleetSnapshot, ModelPlacement, NodeView } from '../fleet/node';
import {
  clearLoad,
  type LoadContext,
  type LoadPoints,
  loadInput,
  loadMsAt,
  loadPoints,
  prefillTpsAt,
  priorsAt,
  ratesByIndex,
} from './load-signals';
import type { ObservedRates, Priors } from './observed-rates';
import { type Elimination, type EliminationProfile, type PlacementTable, placementTable } from './placement-table';
import { contextNeedOf, type RoutingRequest } from './routing-request';
import { type ScoreBreakdown, scoreCandidate } from './score';
import { contextFitFor, delayPoints, prefillMs, type TtftParts } from './signals';

export interface RankContext extends LoadContext {
  /** How many of the best candidates to keep and explain (default 16). */
  readonly top?: number | undefined;
  /** Nodes' services out of routing now (lib/services/dispatch/outlier-ejection), by `targetKey`; eliminated as `ejected`. */
  readonly ejected?: ReadonlyMap<string, Ejection> | undefined;
}

export interface RankedCandidate {
  readonly node: NodeView;
  readonly placement: ModelPlacement;
  /** The model's name on this node: what to send it and what its queue is keyed by. */
  readonly model: string;
  readonly score: number;
  readonly breakdown: ScoreBreakdown;
  /** Requests queued plus running on this node:model when it was ranked. */
  readonly depth: number;
  /** Requests it runs at once on the model. */
  readonly limit: number;
  /** Observed p75 duration here, when the node was busy enough for it to count (./signals `slotWaitMs`). */
  readonly p75Ms: number | undefined;
  /** The expected time to first token here, by part. */
  readonly ttft: TtftParts;
  /**
   * How much slower than alone a prompt is expected to run here now (the requests beside it, other
   * models' runners): what an observation of this request's prefill is corrected by.
   */
  readonly slowdown: number;
  /** Prompt tokens the node is expected to evaluate: the prompt less what its cache likely holds. */
  readonly evaluates: number;
  /** The priors of its rates (before any scaling): what the node's answer is judged against. */
  readonly priors: Priors;
  /**
   * Ejected, and ranked all the same because every candidate for the model is (a panic, as Envoy's
   * panic threshold: an ejection steers work to healthy peers, it does not turn a whole model away).
   */
  readonly ejected: boolean;
}

export interface Ranking {
  /** The model ranked for (the request's model or one of its fallbacks). */
  readonly model: string;
  /** The best candidates, best first; at most `top`. */
  readonly ranked: readonly RankedCandidate[];
  readonly eliminated: readonly Elimination[];
  /** Candidates that survived elimination (may exceed `ranked.length`). */
  readonly eligible: number;
}

export const DEFAULT_TOP = 16;

/** Kept best-first: placement index, total, depth, in the first `count` places of each array. */
interface Best {
  count: number;
  readonly index: number[];
  readonly total: number[];
  readonly depth: number[];
}

/** Plain arrays, grown as they fill: a lone node's ranking allocates no typed arrays for one entry. */
function emptyBest(): Best {
  return { count: 0, index: [], total: [], depth: [] };
}

/** True when placement a (total, depth) ranks before placement b: score, depth, free memory, node id. */
function before(
  table: PlacementTable,
  a: number,
  totalA: number,
  depthA: number,
  b: number,
  totalB: number,
  depthB: number,
) {
  if (totalA !== totalB) return totalA > totalB;
  if (depthA !== depthB) return depthA < depthB;
  const memoryA = table.freeMemory[a] ?? 0;
  const memoryB = table.freeMemory[b] ?? 0;
  if (memoryA !== memoryB) return memoryA > memoryB;
  return (table.idOrder[a] ?? 0) < (table.idOrder[b] ?? 0);
}

/** Inserts the placement at its place among the best, the last one falling off when they are `top`. */
function keep(best: Best, top: number, table: PlacementTable, index: number, total: number, depth: number): void {
  let slot = best.count;
  while (slot > 0) {
    const at = slot - 1;
    if (!before(table, index, total, depth, best.index[at] ?? 0, best.total[at] ?? 0, best.depth[at] ?? 0)) break;
    slot = at;
  }
  if (slot >= top) return;
  // Shift the ones after it down by one, in place (a full list drops its last).
  const last = Math.min(best.count, top - 1);
  for (let at = last; at > slot; at -= 1) {
    best.index[at] = best.index[at - 1] ?? 0;
    best.total[at] = best.total[at - 1] ?? 0;
    best.depth[at] = best.depth[at - 1] ?? 0;
  }
  best.index[slot] = index;
  best.total[slot] = total;
  best.depth[slot] = depth;
  best.count = last + 1;
}

/** Context-fit points per distinct loaded window, for what this request needs (prompt and answer reserve). */
function contextPoints(table: PlacementTable, tokens: number | undefined): Float64Array {
  const points = new Float64Array(table.windows.length);
  table.windows.forEach((window, at) => {
    points[at] = contextFitFor(window > 0 ? window : undefined, tokens).points;
  });
  return points;
}

/**
 * Every survivor's total, keeping the best `top`. Sums in the order `scoreCandidate` does, with the time
 * to first token's parts worked out as ./load-signals `ttftParts` does, so a total here is bit for bit the
 * explained one. `load` is all zeros except at busy or pinned nodes.
 */
function totals(
  table: PlacementTable,
  out: Uint8Array,
  load: LoadPoints,
  context: Float64Array,
  rates: readonly (ObservedRates | undefined)[],
  promptTokens: number,
  now: number,
  top: number,
) {
  const best = emptyBest();
  // The arrays are read once here, not through the table for every placement.
  const { warmUntil, thermalWarm, thermalCold, memoryFit, roleAffinity, windowOf } = table;
  const { queue, waitMs, slowdown, cached, session, depth } = load;
  const size = table.placements.length;
  for (let index = 0; index < size; index += 1) {
    if (out[index] === 1) continue;
    const thermal = now <= (warmUntil[index] ?? 0) ? thermalWarm[index] : thermalCold[index];
    const observed = rates[index];
    const prompt = Math.max(0, promptTokens - (cached[index] ?? 0));
    const total =
      (thermal ?? 0) +
      (memoryFit[index] ?? 0) +
      (queue[index] ?? 0) +
      delayPoints(waitMs[index] ?? 0) +
      delayPoints(loadMsAt(table, index, observed)) +
      delayPoints(prefillMs(prompt, prefillTpsAt(table, index, observed), slowdown[index] ?? 0)) +
      (roleAffinity[index] ?? 0) +
      (context[windowOf[index] ?? 0] ?? 0) +
      (session[index] ?? 0);
    // Below the last of a full `best` it cannot get in, whatever the tie-breaks: what `keep` would decide.
    if (best.count === top && total < (best.total[top - 1] ?? Number.NEGATIVE_INFINITY)) continue;
    keep(best, top, table, index, total, depth[index] ?? 0);
  }
  return best;
}

/**
 * The profile with the ejected nodes taken out too. Ejections change from moment to moment, so they
 * are laid over the memoised profile per request — a copy only while some node is ejected.
 */
function withEjections(
  table: PlacementTable,
  profile: EliminationProfile,
  ejected: ReadonlyMap<string, Ejection> | undefined,
  now: number,
): EliminationProfile | 'panic' {
  if (ejected === undefined || ejected.size === 0) return profile;
  let out: Uint8Array | undefined;
  const eliminated: Elimination[] = [];
  for (let index = 0; index < table.nodeIds.length; index += 1) {
    const nodeId = table.nodeIds[index] ?? '';
    const backend = table.placements[index]?.backend ?? 'ollama';
    const ejection = ejected.get(targetKey(nodeId, backend));
    if (ejection === undefined || profile.out[index] === 1) continue;
    out ??= Uint8Array.from(profile.out);
    out[index] = 1;
    const seconds = Math.max(1, Math.ceil((ejection.until - now) / 1000));
    eliminated.push({
      nodeId,
      reason: 'ejected',
      detail: `${backend === 'ollama' ? 'node' : `its ${backend} sidecar`} is ejected for ${seconds} s more (${ejection.reason})`,
      retryAfterSeconds: seconds,
    });
  }
  if (out === undefined) return profile;
  // Every node left is ejected: rank them all the same rather than turn the model away.
  if (profile.eligible - eliminated.length <= 0) return 'panic';
  return { out, eliminated: [...profile.eliminated, ...eliminated], eligible: profile.eligible - eliminated.length };
}

/**
 * The profile with the placements taken out whose model's own maximum context is far below the prompt
 * (`context-too-long`): no `num_ctx` could hold it there. Per request, like ejections, and skipped at
 * the cost of one comparison for every prompt within the smallest maximum the table knows.
 */
function withContextLimits(
  table: PlacementTable,
  profile: EliminationProfile,
  promptTokens: number | undefined,
): EliminationProfile {
  if (promptTokens === undefined || promptTokens <= table.smallestContextMax * REFUSAL_MARGIN) return profile;
  let out: Uint8Array | undefined;
  const eliminated: Elimination[] = [];
  for (let index = 0; index < table.nodeIds.length; index += 1) {
    const maxContext = table.contextMax[index] ?? 0;
    if (profile.out[index] === 1 || !clearlyTooLong(promptTokens, maxContext)) continue;
    out ??= Uint8Array.from(profile.out);
    out[index] = 1;
    eliminated.push({
      nodeId: table.nodeIds[index] ?? '',
      reason: 'context-too-long',
      detail: `prompt of about ${promptTokens} tokens is far over the model's ${maxContext}-token context`,
      tooLong: { promptTokens, maxContext },
    });
  }
  if (out === undefined) return profile;
  return { out, eliminated: [...profile.eliminated, ...eliminated], eligible: profile.eligible - eliminated.length };
}

export function rankNodes(
  snapshot: FleetSnapshot,
  request: RoutingRequest,
  context: RankContext,
  model: string = request.model,
): Ranking {
  const table = placementTable(snapshot, model);
  if (table === undefined) return { model, ranked: [], eliminated: [], eligible: 0 };
  const base = table.profile(request);
  const overlaid = withEjections(table, base, context.ejected, context.now);
  const panic = overlaid === 'panic';
  const profile = withContextLimits(table, panic ? base : overlaid, request.promptTokens);
  const need = contextNeedOf(request);
  const prompt = request.promptTokens ?? 0;
  const load = loadPoints(table, profile, context, prompt);
  try {
    const top = Math.max(1, context.top ?? DEFAULT_TOP);
    const rates = ratesByIndex(table, context.rates);
    const best = totals(table, profile.out, table.scratch, contextPoints(table, need), rates, prompt, context.now, top);
    const ranked: RankedCandidate[] = [];
    const tokens = { need, prompt };
    for (let position = 0; position < best.count; position += 1) {
      const index = best.index[position] ?? 0;
      const input = loadInput(table, index, best.depth[position] ?? 0, tokens, context);
      const { total, breakdown } = scoreCandidate(input);
      ranked.push({
        node: input.node,
        placement: input.placement,
        model: input.model,
        score: total,
        breakdown,
        depth: input.depth,
        limit: input.limit,
        p75Ms: input.p75Ms,
        ttft: input.ttft,
        slowdown: table.scratch.slowdown[index] ?? 0,
        evaluates: Math.max(0, prompt - (table.scratch.cached[index] ?? 0)),
        priors: priorsAt(table, index),
        ejected: panic && context.ejected?.has(targetKey(input.node.id, input.placement.backend)) === true,
      });
    }
    return { model, ranked, eliminated: profile.eliminated, eligible: profile.eligible };
  } finally {
    if (load !== undefined) clearLoad(load);
  }
}
