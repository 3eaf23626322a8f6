/**
 * The scorer's weights (issue: routing item 1), named and modelled on the reference's defaults (anchor
 * §2.3) so scores stay comparable with it; where ours differ, the comment says why. Points add up with
 * no normalisation: the winner's total is `X-Fleet-Score`. Pure constants.
 */

/** Model temperature: hot (loaded) beats warm (unloaded recently) beats cold (on disk). Reference values. */
export const MODEL_HOT_POINTS = 50;
export const MODEL_WARM_POINTS = 30;
export const MODEL_COLD_POINTS = 10;
/** "Recently unloaded" means within this window (reference: 1,800 s); the OS page cache still holds it. */
export const MODEL_WARM_WINDOW_MS = 1_800_000;
/**
 * A sidecar its agent reports busy (the reference: −50 while generating) loses as much as a full queue
 * here (QUEUE_MAX_PENALTY): the work it is doing may come from another instance, which this instance's
 * queue depth does not count, so an idle sidecar wins unless its own queue is that deep.
 */
export const SIDECAR_BUSY_PENALTY = 30;

/** Memory fit: a loaded model gets the top mark; else by free memory over the model's real size. Reference. */
export const MEMORY_FIT_LOADED_POINTS = 20;
/** [ratio above which, points], best first; a ratio of exactly 1 still fits (last step is ≥). */
export const MEMORY_FIT_STEPS: readonly (readonly [number, number])[] = [
  [2, 20],
  [1.5, 15],
  [1.2, 8],
];
export const MEMORY_FIT_TIGHT_POINTS = 3;

/**
 * Queue depth: −6 per request queued or running per slot, at most −30. The reference divides depth by
 * a bandwidth ratio to the fleet median; we divide by the node's real concurrency (our queues enforce
 * it), and bandwidth already counts in role affinity. Computing a fleet median per request would also
 * cost a sort on the hot path.
 */
export const QUEUE_POINTS_PER_REQUEST = 6;
export const QUEUE_MAX_PENALTY = 30;

/**
 * The expected time to first token (issue 41): every second of it — waiting for a slot, loading the
 * model, evaluating the prompt — costs 20 points, each part at most 600 (30 s). At this rate time
 * decides between nodes that differ by more than a second or so; below that the reference's signals
 * (temperature, memory, role) still break ties. The reference's own wait signal charges 0.1 point per
 * second of p75 × depth (anchor §2.3), capped at 25: against its 40-point gap between a hot and a cold
 * model it never moved a decision, and it knew nothing of a node's speed or its prompt cache.
 */
export const DELAY_POINTS_PER_SECOND = 20;
export const DELAY_MAX_PENALTY = 600;
/**
 * A prompt evaluated beside requests already running shares the GPU with them: up to this much slower
 * with every slot busy (linear in the busy share). Observed rates already average the usual sharing, so
 * this is kept small: it ranks a busier node behind an idle twin, it does not model the batch.
 */
export const PREFILL_SHARING = 0.5;
/**
 * Another model busy on the same node runs in a runner of its own that takes turns on the GPU with this
 * one: each such runner is counted as doubling the prompt's time (an equal share of the GPU each).
 */
export const RUNNER_SHARING = 1;

/**
 * Role affinity: big models to big (fast) nodes, small models to small ones. Sizes in GB of the model's
 * real resident size. Bandwidth-aware when the node reports its memory bandwidth, else by total memory.
 * Reference formulas and thresholds.
 */
export const LARGE_MODEL_GB = 20;
export const SMALL_MODEL_GB = 8;
export const ROLE_BANDWIDTH_BASE = 5;
export const ROLE_BANDWIDTH_GBPS_PER_POINT = 40;
export const ROLE_MAX_POINTS = 25;
export const ROLE_SMALL_MODEL_CEILING = 18;
export const ROLE_SMALL_MODEL_SLOPE = 0.6;
export const ROLE_SMALL_MODEL_FLOOR = 3;
export const ROLE_MID_MODEL_SHARE = 0.6;
/** Without bandwidth: [node total memory GB at least, points] for large models, best first. */
export const ROLE_LARGE_BY_MEMORY: readonly (readonly [number, number])[] = [
  [128, 15],
  [32, 5],
];
/** Without bandwidth: [node total memory GB at most, points] for small models, best first. */
export const ROLE_SMALL_BY_MEMORY: readonly (readonly [number, number])[] = [
  [32, 15],
  [128, 8],
];
export const ROLE_SMALL_BY_MEMORY_FLOOR = 3;
export const ROLE_MID_BY_MEMORY = 5;

/**
 * Context fit, when the prompt is estimated and the model is loaded with a known context window:
 * [window / prompt below, points]; a prompt bigger than the loaded window costs −15 (Ollama would
 * truncate it or reload the model). Reference values.
 */
export const CONTEXT_FIT_STEPS: readonly (readonly [number, number])[] = [
  [1, -15],
  [1.5, 3],
  [3, 7.5],
  [8, 12],
];
export const CONTEXT_FIT_ROOMY_POINTS = 15;

/**
 * Conversation affinity: +20 on the node the conversation is pinned to (reference value), shrinking
 * as that node's queue grows: 20 / (1 + depth / 2) — full when idle, half at depth 2, 4 at depth 8
 * (the reference's "below a quarter at depth 8"), always above 0 while pinned.
 */
export const AFFINITY_POINTS = 20;
export const AFFINITY_HALF_DEPTH = 2;
