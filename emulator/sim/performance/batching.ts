/**
 * How requests running together share a GPU: the batching curve of decode and the step model that puts a
 * newcomer's prefill in the same batches (Ollama's runner fills each batch of up to 512 inputs with one
 * token per decoding sequence plus the prompt tokens of sequences still prefilling). Pure functions.
 */
import { PREFILL_BATCH_TOKENS } from './model';

/**
 * Tokens per second the node decodes in total with `n` streams: single × n / (1 + β(n−1)).
 * n = 1 gives `single`; each stream gets total ÷ n, so each is slower and all together are faster.
 */
export function batchedDecodeTotal(single: number, n: number, beta: number): number {
  return n <= 0 ? 0 : (single * n) / (1 + beta * (n - 1));
}

export interface RunnerLoad {
  /** Requests of this model still evaluating their prompt. */
  readonly prefilling: number;
  /** Requests of this model generating. */
  readonly decoding: number;
}

export interface RunnerSpeeds {
  /** Prompt tokens per second of the model alone on the GPU. */
  readonly prefill: number;
  /** Tokens per second of one stream decoding alone. */
  readonly decode: number;
  readonly beta: number;
}

export interface RequestRates {
  /** Prompt tokens per second each prefilling request gets. */
  readonly prefill: number;
  /** Tokens per second each decoding request gets. */
  readonly decode: number;
}

/**
 * Per-request rates of one model's runner. One step produces one token for every decoding request and
 * evaluates a 512-token chunk of prompt shared equally by the prefilling ones; it lasts as long as the
 * slower of its two parts (a roofline: the decode tokens ride along a compute-bound prefill chunk, the
 * chunk waits for the bandwidth-bound weight read). Runners of different models time-share the GPU:
 * each gets 1 / `runners` of it.
 */
export function requestRates(load: RunnerLoad, speeds: RunnerSpeeds, runners: number): RequestRates {
  const decodeStep =
    load.decoding > 0 ? load.decoding / batchedDecodeTotal(speeds.decode, load.decoding, speeds.beta) : 0;
  const prefillStep = load.prefilling > 0 ? PREFILL_BATCH_TOKENS / speeds.prefill : 0;
  const step = Math.max(decodeStep, prefillStep) * Math.max(1, runners);
  if (!(step > 0)) return { prefill: 0, decode: 0 };
  return {
    prefill: load.prefilling > 0 ? PREFILL_BATCH_TOKENS / load.prefilling / step : 0,
    decode: load.decoding > 0 ? 1 / step : 0,
  };
}
