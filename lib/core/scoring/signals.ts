/**
 * Stage 2 of routing (issue: routing item 1; anchor §2.3): each signal is a small function of one
 * candidate that returns its points and why. Weights in ./score-weights. The ranker takes the
 * request-independent points once per snapshot (./placement-table) and the load-dependent ones from the
 * `…Points` helpers these signals use themselves (./load-signals), so each formula exists once. Reasons
 * are constants — no string is built per candidate; the numbers behind them (depth, slots) are on the
 * ranked candidate. Pure.
 */
import type { ModelPlacement, NodeView } from '../fleet/node';
import * as W from './score-weights';

export interface Signal {
  readonly points: number;
  readonly reason: string;
}

/** Everything a signal may look at for one candidate; the ranker fills one per node. */
export interface SignalInput {
  readonly node: NodeView;
  readonly placement: ModelPlacement;
  /** The model's name on this node (the placement's, `llama3:latest` for a request for `llama3`). */
  readonly model: string;
  /** The model's real resident size in bytes (./resident-size); 0 when unknown. */
  readonly resident: number;
  /** Requests queued plus running on this node:model now. */
  readonly depth: number;
  /** Requests this node runs at once on the model (./concurrency-limit). */
  readonly limit: number;
  /** Observed p75 request duration on this node:model, when there are observations. */
  readonly p75Ms: number | undefined;
  /** The expected time to first token here, by part (./TtftParts). */
  readonly ttft: TtftParts;
  /**
   * Tokens the context must hold: the prompt estimate plus the answer reserve (`contextNeedOf` in
   * ./routing-request); undefined when the prompt was not estimated.
   */
  readonly promptTokens: number | undefined;
  /** The request's conversation is pinned to this node. */
  readonly pinned: boolean;
  /**
   * Where the conversation is pinned and the router tracks prompt caches: the chance (0–1) that this node
   * still holds the conversation's prompt, which scales the affinity. Absent: the full affinity.
   */
  readonly held?: number | undefined;
  readonly now: number;
}

export type SignalName =
  | 'thermal'
  | 'memory_fit'
  | 'queue_depth'
  | 'expected_wait'
  | 'expected_load'
  | 'expected_prefill'
  | 'role_affinity'
  | 'context_fit'
  | 'session_affinity';

const BYTES_PER_GIB = 2 ** 30;
const BYTES_PER_GB = 1e9;

const signal = (points: number, reason: string): Signal => Object.freeze({ points, reason });

const HOT = signal(W.MODEL_HOT_POINTS, 'model is loaded');
const WARM = signal(W.MODEL_WARM_POINTS, 'model was unloaded recently');
const COLD = signal(W.MODEL_COLD_POINTS, 'model is on disk');
const SIDECAR = signal(W.MODEL_COLD_POINTS, 'model is served by a sidecar');
const SIDECAR_BUSY = signal(W.MODEL_COLD_POINTS - W.SIDECAR_BUSY_PENALTY, 'model is served by a busy sidecar');

/**
 * Until when the model counts as warm on this node (unloaded within the warm window); −∞ when it never
 * was. Shared with the ranker, which keeps it per placement.
 */
export function warmUntil(node: NodeView, model: string): number {
  const unloadedAt = node.recentlyUnloaded[model];
  return typeof unloadedAt === 'number' ? unloadedAt + W.MODEL_WARM_WINDOW_MS : Number.NEGATIVE_INFINITY;
}

/**
 * The node agent reports its sidecar working on something (`generating`, `transcribing`, `processing`):
 * work this instance's queues may not know about, sent by another instance or another client.
 */
function sidecarBusy(placement: ModelPlacement): boolean {
  const { sidecars } = placement.node;
  switch (placement.backend) {
    case 'image':
      return sidecars.image?.busy === true;
    case 'transcription':
      return sidecars.transcription?.busy === true;
    case 'text-embedding':
      return sidecars.textEmbedding?.busy === true;
    default:
      return false;
  }
}

/** Hot, warm or cold: what loading the model would cost this node (the reference's "thermal"). */
export function thermal(input: SignalInput): Signal {
  if (input.placement.loaded !== undefined) return HOT;
  if (input.placement.model === undefined) return sidecarBusy(input.placement) ? SIDECAR_BUSY : SIDECAR;
  return input.now <= warmUntil(input.node, input.model) ? WARM : COLD;
}

const FIT_LOADED = signal(W.MEMORY_FIT_LOADED_POINTS, 'model is loaded');
const FIT_NO_MEMORY = signal(0, 'node reports no memory');
const FIT_SIZE_UNKNOWN = signal(0, 'model size unknown');
const FIT_STEPS = W.MEMORY_FIT_STEPS.map(([ratio, points]) => ({
  ratio,
  signal: signal(points, `free memory over ${ratio}× the model`),
}));
const FIT_TIGHT = signal(W.MEMORY_FIT_TIGHT_POINTS, 'free memory barely holds the model');
const FIT_NONE = signal(0, 'model does not fit in free memory');

/** Room to load the model: free memory over its real size. */
export function memoryFit(input: SignalInput): Signal {
  if (input.placement.loaded !== undefined) return FIT_LOADED;
  const memory = input.node.memory;
  if (memory === undefined) return FIT_NO_MEMORY;
  if (input.resident <= 0) return FIT_SIZE_UNKNOWN;
  const ratio = (memory.availableGb * BYTES_PER_GIB) / input.resident;
  for (const step of FIT_STEPS) if (ratio > step.ratio) return step.signal;
  return ratio >= 1 ? FIT_TIGHT : FIT_NONE;
}

const IDLE = signal(0, 'queue is empty');

/** Queue-depth points (≤ 0) for `depth` requests queued or running on `limit` slots. */
export function queuePoints(depth: number, limit: number): number {
  if (depth <= 0) return 0;
  return -Math.min(W.QUEUE_MAX_PENALTY, (W.QUEUE_POINTS_PER_REQUEST * depth) / limit);
}

/** Contention: requests queued or running here, per slot. */
export function queueDepth(input: SignalInput): Signal {
  if (input.depth <= 0) return IDLE;
  return { points: queuePoints(input.depth, input.limit), reason: 'requests queued or running, per slot' };
}

/**
 * The expected time to the first token on one candidate (issue 41, item 4), in three parts: waiting for
 * a slot, loading the model, evaluating the prompt. Each is a time in ms, worked out from what the node
 * reported of itself (lib/core/scoring/observed-rates) and what the queues hold (./load-signals).
 */
export interface TtftParts {
  readonly waitMs: number;
  readonly loadMs: number;
  readonly prefillMs: number;
}

/**
 * Ms a newcomer waits for a slot: the requests ahead of it beyond the free slots, each slot turning over
 * once per observed p75 duration — or, when the requests that queued here lately waited longer per place
 * in line (a burst: the durations in the window were mostly finished before it), that; 0 with a free slot
 * or no observation yet.
 */
export function slotWaitMs(
  depth: number,
  limit: number,
  p75Ms: number | undefined,
  waitPerPlaceMs: number | undefined = undefined,
): number {
  const ahead = depth - limit + 1;
  if (ahead <= 0) return 0;
  const turnover = p75Ms === undefined ? 0 : (ahead / limit) * p75Ms;
  return Math.max(turnover, waitPerPlaceMs === undefined ? 0 : ahead * waitPerPlaceMs);
}

/**
 * How much slower a prompt is evaluated beside `depth` requests on `limit` slots: they share the GPU.
 * Observed rates already average the usual sharing; this only ranks a busier node behind an idle twin.
 */
export function prefillSlowdown(depth: number, limit: number): number {
  return depth > 0 ? (W.PREFILL_SHARING * Math.min(depth, limit)) / limit : 0;
}

/**
 * How much slower a prompt is evaluated while `runners` other models have requests on the node: each
 * model runs in a runner of its own, and runners take turns on the GPU rather than batch together.
 */
export function runnerSharing(runners: number): number {
  return runners > 0 ? W.RUNNER_SHARING * runners : 0;
}

/** Ms to evaluate `tokens` prompt tokens at `tps`, slowed by `slowdown` (./prefillSlowdown). */
export function prefillMs(tokens: number, tps: number, slowdown: number): number {
  return tokens > 0 && tps > 0 ? ((tokens * 1000) / tps) * (1 + slowdown) : 0;
}

/** Points (≤ 0) for an expected delay of `ms`: the same rate for every part of the time to first token. */
export function delayPoints(ms: number): number {
  return ms > 0 ? -Math.min(W.DELAY_MAX_PENALTY, (ms / 1000) * W.DELAY_POINTS_PER_SECOND) : 0;
}

const NO_WAIT = signal(0, 'a slot is free');
const NO_LOAD = signal(0, 'model is loaded');
const NO_PROMPT = signal(0, 'prompt size not estimated');

/** Time until a slot frees: requests ahead of it over the slots × observed p75. */
export function expectedWait(input: SignalInput): Signal {
  if (input.ttft.waitMs <= 0) return NO_WAIT;
  return {
    points: delayPoints(input.ttft.waitMs),
    reason: 'seconds until a slot frees, from observed p75 and recent waits in line',
  };
}

/** Time to load the model: the node's last cold load of it, else its size at disk speed. */
export function expectedLoad(input: SignalInput): Signal {
  if (input.ttft.loadMs <= 0) return NO_LOAD;
  return { points: delayPoints(input.ttft.loadMs), reason: 'seconds to load the model, observed or from its size' };
}

/** Time to evaluate the prompt, less what the node's cache likely holds, at its observed prefill rate. */
export function expectedPrefill(input: SignalInput): Signal {
  if (input.ttft.prefillMs <= 0) return NO_PROMPT;
  return { points: delayPoints(input.ttft.prefillMs), reason: 'seconds to evaluate the prompt at the observed rate' };
}

const ROLE_SIZE_UNKNOWN = signal(0, 'model size unknown');
const ROLE_NODE_UNKNOWN = signal(0, 'node size unknown');

function roleByBandwidth(modelGb: number, bandwidth: number): Signal {
  const bonus = Math.min(W.ROLE_MAX_POINTS, W.ROLE_BANDWIDTH_BASE + bandwidth / W.ROLE_BANDWIDTH_GBPS_PER_POINT);
  if (modelGb > W.LARGE_MODEL_GB) return { points: bonus, reason: 'large model on a fast node' };
  if (modelGb < W.SMALL_MODEL_GB) {
    const points = Math.max(W.ROLE_SMALL_MODEL_FLOOR, W.ROLE_SMALL_MODEL_CEILING - W.ROLE_SMALL_MODEL_SLOPE * bonus);
    return { points, reason: 'small model: slower nodes preferred' };
  }
  return { points: W.ROLE_MID_MODEL_SHARE * bonus, reason: 'mid-size model' };
}

function roleByMemory(modelGb: number, totalGb: number): Signal {
  if (modelGb > W.LARGE_MODEL_GB) {
    for (const [atLeast, points] of W.ROLE_LARGE_BY_MEMORY) {
      if (totalGb >= atLeast) return { points, reason: 'large model on a big node' };
    }
    return { points: 0, reason: 'large model on a small node' };
  }
  if (modelGb < W.SMALL_MODEL_GB) {
    for (const [atMost, points] of W.ROLE_SMALL_BY_MEMORY) {
      if (totalGb <= atMost) return { points, reason: 'small model on a small node' };
    }
    return { points: W.ROLE_SMALL_BY_MEMORY_FLOOR, reason: 'small model on a big node' };
  }
  return { points: W.ROLE_MID_BY_MEMORY, reason: 'mid-size model' };
}

/** Big models to big nodes, small ones to small nodes, so the big nodes stay free for what only they can run. */
export function roleAffinity(input: SignalInput): Signal {
  if (input.resident <= 0) return ROLE_SIZE_UNKNOWN;
  const modelGb = input.resident / BYTES_PER_GB;
  const { hardware, memory } = input.node;
  const bandwidth = hardware.memoryBandwidthGbps;
  if (bandwidth !== undefined && bandwidth > 0) return roleByBandwidth(modelGb, bandwidth);
  const totalGb = hardware.memoryTotalGb ?? memory?.totalGb;
  if (totalGb === undefined || totalGb <= 0) return ROLE_NODE_UNKNOWN;
  return roleByMemory(modelGb, totalGb);
}

const NO_ESTIMATE = signal(0, 'prompt size not estimated');
const CONTEXT_AT_LOAD = signal(0, 'context window is set when the model loads');
const CONTEXT_STEPS = W.CONTEXT_FIT_STEPS.map(([below, points]) => ({
  below,
  signal: signal(
    points,
    below <= 1 ? 'prompt exceeds the loaded context' : `loaded context under ${below}× the prompt`,
  ),
}));
const CONTEXT_ROOMY = signal(W.CONTEXT_FIT_ROOMY_POINTS, 'loaded context is roomy');

/** Context fit from the loaded window and the prompt estimate (either may be unknown). Shared with the ranker. */
export function contextFitFor(window: number | undefined, tokens: number | undefined): Signal {
  if (tokens === undefined || tokens <= 0) return NO_ESTIMATE;
  if (window === undefined) return CONTEXT_AT_LOAD;
  const ratio = window / tokens;
  for (const step of CONTEXT_STEPS) if (ratio < step.below) return step.signal;
  return CONTEXT_ROOMY;
}

/** The loaded context window against the prompt estimate. */
export function contextFit(input: SignalInput): Signal {
  return contextFitFor(input.placement.loaded?.contextLength, input.promptTokens);
}

const NOT_PINNED = signal(0, 'conversation not pinned here');
const PINNED_IDLE = signal(W.AFFINITY_POINTS, 'conversation pinned here');

/**
 * Affinity points on the pinned node: full when idle, shrinking with its queue, and scaled by `held`, the
 * chance the node still holds the conversation's prompt (0 when it surely does not).
 */
export function affinityPoints(depth: number, held = 1): number {
  const points = depth > 0 ? W.AFFINITY_POINTS / (1 + depth / W.AFFINITY_HALF_DEPTH) : W.AFFINITY_POINTS;
  return held >= 1 ? points : points * Math.max(0, held);
}

/**
 * Back to the node that served the conversation, unless its queue makes that a bad deal. What a
 * conversation finds there is its prompt in the node's cache, so where the router tracks the caches the
 * affinity shrinks with the chance that the node still holds it: a node that has since served more other
 * conversations than it has slots is no better a place for the next turn than any other.
 */
export function sessionAffinity(input: SignalInput): Signal {
  if (!input.pinned) return NOT_PINNED;
  const held = input.held ?? 1;
  if (held < 1) {
    return {
      points: affinityPoints(input.depth, held),
      reason: 'conversation pinned here, shrunk by the chance its prompt is still cached and by queue depth',
    };
  }
  if (input.depth <= 0) return PINNED_IDLE;
  return { points: affinityPoints(input.depth), reason: 'conversation pinned here, shrunk by queue depth' };
}
