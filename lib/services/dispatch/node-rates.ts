/**
 * The nodes' observed rates (issue 41, item 4): per node:model, the prefill and decode rates and the
 * cold-load time from the node's own last line of each completed request, smoothed (an exponentially
 * weighted mean, so a node that slows down under load is seen to within a few requests). The scorer reads
 * them through lib/core/scoring/observed-rates `RateLookup`; `/fleet/status` lists them. In memory, one per
 * process, like the latency windows: a routing hint learnt from this instance's traffic; the record of
 * rates every instance shares is the analytics rollups. Holds state, does no I/O.
 */
import { COLD_LOAD_MS } from '../../core/analytics/rollup';
import type { NodeObservation, ObservedRates, PriorScale, Priors, RateLookup } from '../../core/scoring/observed-rates';
import { smoothed } from '../../core/smoothed';

/** Weight of the newest observation. */
const SMOOTHING = 0.3;
/** A prompt this short is timed by the node's clock granularity and the first token's sampling, not by prefill. */
const MIN_PREFILL_TOKENS = 32;
const MIN_DECODE_TOKENS = 8;

export interface NodeRatesEntry extends ObservedRates {
  readonly nodeId: string;
  readonly model: string;
}

export interface NodeRates extends RateLookup {
  /**
   * Learns from one completed request. `slowdown` is how much slower than alone the scorer expected its
   * prompt to run when it was sent (lib/core/scoring/signals `prefillSlowdown`, `runnerSharing`): the
   * prefill rate kept is the node's alone, so a rate seen in a busy spell does not make the node look
   * slow once the spell is over.
   */
  observe(nodeId: string, model: string, observation: NodeObservation, slowdown?: number, priors?: Priors): void;
  entries(): NodeRatesEntry[];
}

interface Entry {
  readonly nodeId: string;
  readonly model: string;
  prefillTps: number | undefined;
  decodeTps: number | undefined;
  loadMs: number | undefined;
  samples: number;
}

/** Weight of the newest observation in the scale of the priors (a log-ratio, smoothed). */
const SCALE_SMOOTHING = 0.1;

/** The log of observed ÷ prior, smoothed; undefined before the first. */
function scaled(previous: number | undefined, observed: number, prior: number | undefined): number | undefined {
  if (prior === undefined || !(prior > 0) || !(observed > 0)) return previous;
  return smoothed(previous, Math.log(observed / prior), SCALE_SMOOTHING);
}

export function createNodeRates(): NodeRates {
  const byKey = new Map<string, Entry>();
  let version = 0;
  let prefillLog: number | undefined;
  let loadLog: number | undefined;
  let scale: PriorScale = { prefill: 1, load: 1 };
  const rescale = () => {
    scale = { prefill: Math.exp(prefillLog ?? 0), load: Math.exp(loadLog ?? 0) };
  };
  return {
    get version() {
      return version;
    },
    get priorScale() {
      return scale;
    },
    ratesOf: (nodeId, model) => byKey.get(`${nodeId}\u0000${model}`),
    observe(nodeId, model, observation, slowdown = 0, priors = undefined) {
      const key = `${nodeId}\u0000${model}`;
      let entry = byKey.get(key);
      if (entry === undefined) {
        entry = { nodeId, model, prefillTps: undefined, decodeTps: undefined, loadMs: undefined, samples: 0 };
        byKey.set(key, entry);
        version += 1;
      }
      entry.samples += 1;
      const { promptTokens, promptEvalMs, completionTokens, evalMs, loadMs } = observation;
      if (
        promptTokens !== undefined &&
        promptEvalMs !== undefined &&
        promptTokens >= MIN_PREFILL_TOKENS &&
        promptEvalMs > 0
      ) {
        const alone = ((promptTokens * 1000) / promptEvalMs) * (1 + slowdown);
        entry.prefillTps = smoothed(entry.prefillTps, alone, SMOOTHING);
        prefillLog = scaled(prefillLog, alone, priors?.prefillTps);
      }
      if (
        completionTokens !== undefined &&
        evalMs !== undefined &&
        completionTokens >= MIN_DECODE_TOKENS &&
        evalMs > 0
      ) {
        entry.decodeTps = smoothed(entry.decodeTps, (completionTokens * 1000) / evalMs, SMOOTHING);
      }
      if (loadMs !== undefined && loadMs >= COLD_LOAD_MS) {
        entry.loadMs = smoothed(entry.loadMs, loadMs, SMOOTHING);
        loadLog = scaled(loadLog, loadMs, priors?.loadMs);
      }
      if (priors !== undefined) rescale();
    },
    entries: () => [...byKey.values()].map((entry) => ({ ...entry })),
  };
}
