/**
 * What the scorer knows of a node's speed (issue 41, item 4: "expected wait from measured decode rates"):
 * per node:model, the prefill and decode rates and the cold-load time the node itself reported on its
 * last lines (Ollama's `prompt_eval_*`, `eval_*`, `load_duration`), smoothed; and, before a node has
 * answered, priors from what its agent says of its hardware. The dispatcher's store
 * (lib/services/dispatch/node-rates) implements the lookup. Pure.
 */

/** A node:model's observed rates. The store keeps one object per node:model and updates it in place. */
export interface ObservedRates {
  /** Prompt tokens evaluated per second; undefined before an observation of a long enough prompt. */
  readonly prefillTps: number | undefined;
  /** Answer tokens generated per second; undefined before an observation. */
  readonly decodeTps: number | undefined;
  /** The last cold load's time, ms; undefined before the node loaded the model for a request. */
  readonly loadMs: number | undefined;
  /** Completed requests observed. */
  readonly samples: number;
}

/** What the scorer reads. */
export interface RateLookup {
  /** The live rates of node:model; undefined before its first observation (then the same object for good). */
  ratesOf(nodeId: string, model: string): ObservedRates | undefined;
  /** Grows whenever a node:model is observed for the first time: a reader's cache of misses is stale then. */
  readonly version: number;
  /**
   * How the nodes observed so far ran against the priors the scorer had for them (observed ÷ prior, a
   * smoothed geometric mean; 1 before any): what a node not yet observed is expected to do against its own
   * prior. A fleet whose priors are off by a common factor — slower disks, a tuned build, a simulated fleet
   * run faster than real time — would otherwise keep sending work to the nodes it has seen, and never try
   * one whose prior looks slow beside their observed rates.
   */
  readonly priorScale?: PriorScale;
}

export interface PriorScale {
  /** Observed prefill rate ÷ its prior. */
  readonly prefill: number;
  /** Observed cold-load time ÷ its prior. */
  readonly load: number;
}

/** What the scorer expected of a node before it had observed it: the priors a ranking used. */
export interface Priors {
  readonly prefillTps: number;
  readonly loadMs: number;
}

/** What one completed request tells of its node: the node's own counts and durations. */
export interface NodeObservation {
  readonly promptTokens?: number;
  readonly promptEvalMs?: number;
  readonly completionTokens?: number;
  readonly evalMs?: number;
  readonly loadMs?: number;
}

/** Prefill rate assumed where nothing is known of the node or the model (a mid-range GPU, 7–8 B at 4-bit). */
export const DEFAULT_PREFILL_TPS = 1000;
/**
 * Decode is memory-bandwidth bound: about this share of the bandwidth streams the weights once per token
 * (llama.cpp's published Apple-silicon and CUDA tables put it between 0.45 and 0.75).
 */
const DECODE_BANDWIDTH_EFFICIENCY = 0.6;
/** Prefill is compute bound and some ten times the decode rate on unified-memory machines (more on GPUs). */
const PREFILL_PER_DECODE = 12;
/** A cold load reads the weights at about NVMe speed into memory, plus the runner's start. */
export const DEFAULT_LOAD_BYTES_PER_MS = 2e6;
export const LOAD_START_MS = 500;
/** A load whose size is unknown: what a 7–8 B model at 4-bit takes. */
const UNKNOWN_SIZE_LOAD_MS = LOAD_START_MS + 5e9 / DEFAULT_LOAD_BYTES_PER_MS;

/** The prefill rate to expect before the node has answered: from its memory bandwidth and the model's size. */
export function priorPrefillTps(bandwidthGbps: number | undefined, residentBytes: number): number {
  if (bandwidthGbps === undefined || !(bandwidthGbps > 0) || !(residentBytes > 0)) return DEFAULT_PREFILL_TPS;
  const decode = (DECODE_BANDWIDTH_EFFICIENCY * bandwidthGbps * 1e9) / residentBytes;
  return decode * PREFILL_PER_DECODE;
}

/** The time a cold load should take before the node has reported one: the model's size at disk speed. */
export function priorLoadMs(residentBytes: number): number {
  return residentBytes > 0 ? LOAD_START_MS + residentBytes / DEFAULT_LOAD_BYTES_PER_MS : UNKNOWN_SIZE_LOAD_MS;
}
