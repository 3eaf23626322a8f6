/**
 * The `performance` option of a simulated node (`SimPerformance`) and the rates it resolves to per model
 * (`performanceModel`): prefill is compute bound (effective TFLOP/s ÷ 2 FLOP per parameter per token),
 * decode is bandwidth bound (efficiency × bandwidth ÷ weight bytes), a cold load reads the weights at the
 * class's load rate after a fixed runner start. `docs/simulated-node.md` states the model and its sources.
 */
import type { CatalogModel } from '../catalog';
import { DEFAULT_BATCH_BETA, DEFAULT_DECODE_EFFICIENCY, type HardwareSpec, resolveHardware } from './hardware';

export interface SimPerformance {
  /** A class name from `HARDWARE_CLASSES`, or an explicit spec. */
  readonly hardware: string | HardwareSpec;
  /** Multiplier on prefill and decode rates (default 1): how a bench makes nodes 1×, 2×, 4×. */
  readonly speed?: number;
  /** Time compression (default 1): rates × timeScale, load and keep-alive times ÷ timeScale. */
  readonly timeScale?: number;
  /** Seed of the node's PRNG, mixed with the node id (default 0). */
  readonly seed?: number;
  /** Relative spread of each request's rates, uniform in ±jitter (default 0.05; 0 = none). */
  readonly jitter?: number;
  /** Overrides the class's memory, GiB. */
  readonly memoryGb?: number;
  /**
   * `OLLAMA_MULTIUSER_CACHE` set on the node (default false): the runner keeps each user's cached prefix
   * where it can rather than give a new prompt the first free slot (./prompt-cache).
   */
  readonly multiUserCache?: boolean;
}

/** What one model does on the node, in the modelled world (speed applied, timeScale not). */
export interface ModelRates {
  readonly model: string;
  readonly weightsBytes: number;
  readonly parameterCount: number;
  /** Prompt tokens per second with the GPU to itself. */
  readonly prefillTokensPerSecond: number;
  /** Tokens per second of one stream decoding alone. */
  readonly decodeTokensPerSecond: number;
  /** Cold load: runner start plus weights ÷ load rate. */
  readonly loadMs: number;
  /** KV cache per token of context per parallel slot. */
  readonly kvBytesPerToken: number;
}

export interface SimPerformanceModel {
  /** The resolved spec, `memoryGb` overridden when the option says so. */
  readonly hardware: HardwareSpec;
  readonly speed: number;
  readonly timeScale: number;
  readonly seed: number;
  readonly jitter: number;
  readonly decodeEfficiency: number;
  readonly batchBeta: number;
  readonly numParallel: number;
  readonly multiUserCache: boolean;
  /** Bytes models may occupy. */
  readonly memoryBytes: number;
  readonly models: readonly ModelRates[];
}

export const GIB = 1024 ** 3;

/** Spawning a runner and setting up its context before any weight is read (see docs/simulated-node.md). */
export const RUNNER_START_MS = 300;

/** llama.cpp's default prompt batch in Ollama (`NumBatch: 512`, api/types.go): prefill chunk size. */
export const PREFILL_BATCH_TOKENS = 512;

/**
 * KV cache bytes per token per slot: K and V, f16 (2 bytes), 8 KV heads of 128 dimensions per layer —
 * the grouped-query shape the simulated `/api/show` advertises.
 */
export function kvBytesPerToken(entry: CatalogModel): number {
  return 2 * 2 * 8 * 128 * entry.blockCount;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  const resolved = value ?? fallback;
  if (!(resolved > 0) || !Number.isFinite(resolved)) throw new Error(`performance.${name} must be a positive number`);
  return resolved;
}

/** The rates of `entry` on `hardware` at `speed` (modelled world). */
export function modelRates(hardware: HardwareSpec, entry: CatalogModel, speed: number): ModelRates {
  const efficiency = hardware.decodeEfficiency ?? DEFAULT_DECODE_EFFICIENCY;
  const weightsGb = entry.size / 1e9;
  // An entry without a parameter count would divide by zero: count 2 bytes a parameter.
  const parameters = entry.parameterCount > 0 ? entry.parameterCount : entry.size / 2;
  return {
    model: entry.name,
    weightsBytes: entry.size,
    parameterCount: parameters,
    prefillTokensPerSecond: ((hardware.prefillTflops * 1e12) / (2 * parameters)) * speed,
    decodeTokensPerSecond: ((efficiency * hardware.memoryBandwidthGbps) / weightsGb) * speed,
    loadMs: RUNNER_START_MS + (weightsGb / hardware.loadGbps) * 1000,
    kvBytesPerToken: kvBytesPerToken(entry),
  };
}

/** Resolves the option for a node with these models and `numParallel` slots; throws on a bad option. */
export function performanceModel(
  performance: SimPerformance,
  models: readonly CatalogModel[],
  numParallel: number,
): SimPerformanceModel {
  const base = resolveHardware(performance.hardware);
  const hardware = performance.memoryGb === undefined ? base : { ...base, memoryGb: performance.memoryGb };
  const speed = positive(performance.speed, 1, 'speed');
  const jitter = performance.jitter ?? 0.05;
  if (!(jitter >= 0 && jitter < 1)) throw new Error('performance.jitter must be in [0, 1)');
  return {
    hardware,
    speed,
    timeScale: positive(performance.timeScale, 1, 'timeScale'),
    seed: performance.seed ?? 0,
    jitter,
    decodeEfficiency: hardware.decodeEfficiency ?? DEFAULT_DECODE_EFFICIENCY,
    batchBeta: hardware.batchBeta ?? DEFAULT_BATCH_BETA,
    numParallel,
    multiUserCache: performance.multiUserCache === true,
    memoryBytes: positive(hardware.memoryGb, 1, 'memoryGb') * GIB,
    models: models.map((entry) => modelRates(hardware, entry, speed)),
  };
}
