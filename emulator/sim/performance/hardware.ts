/**
 * The hardware classes a simulated node can be (`HARDWARE_CLASSES`) and `resolveHardware`, which turns a
 * class name or an explicit spec into the figures the performance model reads. Every figure comes from a
 * published measurement; `docs/simulated-node.md` cites each one next to its value.
 *
 * The reference model behind the calibrated figures is llama.cpp's benchmark model, LLaMA-2 7B Q4_0:
 * 3.56 GiB (3.82 GB) of weights, 6.74 B parameters.
 */

export interface HardwareSpec {
  readonly name: string;
  /** Memory models may occupy, GiB: VRAM on a discrete GPU, unified memory on a Mac, RAM on a CPU box. */
  readonly memoryGb: number;
  /** Peak memory bandwidth, GB/s (10⁹ bytes). */
  readonly memoryBandwidthGbps: number;
  /**
   * Effective compute in prefill, TFLOP/s: a measured prompt-processing rate (pp512) × 2 × parameters.
   * Lower than the datasheet peak, as llama.cpp reaches it.
   */
  readonly prefillTflops: number;
  /** Reading a model from disk into memory, GB/s. */
  readonly loadGbps: number;
  /** Share of the peak bandwidth one decoding stream reaches (measured tg128 × 3.82 GB ÷ bandwidth); default 0.6. */
  readonly decodeEfficiency?: number;
  /** β of the batching curve total(n) = single × n / (1 + β(n−1)); default 0.12. */
  readonly batchBeta?: number;
  /** What a node agent reports as `chip` (default: `name`). */
  readonly chip?: string;
  /** What a node agent reports as `arch` (default `apple_silicon`, herd-node's value). */
  readonly arch?: string;
}

/** The defaults an explicit spec falls back to: middle-of-the-table values of the classes below. */
export const DEFAULT_DECODE_EFFICIENCY = 0.6;
export const DEFAULT_BATCH_BETA = 0.12;

/** LLaMA-2 7B Q4_0, llama.cpp's benchmark model: what the pp512/tg128 figures below were measured on. */
const REFERENCE_GB = 3.82;
const REFERENCE_PARAMS = 6.74e9;

/** Effective prefill TFLOP/s from a measured pp512 rate on a model of `params` parameters. */
function tflopsFromPp(pp512: number, params = REFERENCE_PARAMS): number {
  return Math.round((pp512 * 2 * params) / 1e10) / 100;
}

/** Share of peak bandwidth from a measured tg128 rate on a model of `gb` gigabytes. */
function efficiencyFromTg(tg128: number, bandwidthGbps: number, gb = REFERENCE_GB): number {
  return Math.round(((tg128 * gb) / bandwidthGbps) * 1000) / 1000;
}

/** Loading from an NVMe SSD (~3 GB/s sequential read) into VRAM or RAM. */
const NVME_LOAD_GBPS = 3;
/** Loading on Apple silicon (internal SSD, mmap into unified memory): ~0.6 s for a 2 GB model. */
const APPLE_LOAD_GBPS = 4;

export const HARDWARE_CLASSES: Readonly<Record<string, HardwareSpec>> = {
  // llama.cpp CUDA scoreboard (discussion #15013), no flash attention: pp512 11992.70, tg128 186.21.
  'rtx-4090': {
    name: 'rtx-4090',
    memoryGb: 24,
    memoryBandwidthGbps: 1008,
    prefillTflops: tflopsFromPp(11992.7),
    loadGbps: NVME_LOAD_GBPS,
    decodeEfficiency: efficiencyFromTg(186.21, 1008),
    // llama.cpp PR #6646, llama 7B Q4_0 on an RTX 4090 at micro-batch 1/2/4: 146.68, 276.31, 547.74 t/s.
    batchBeta: 0.04,
    chip: 'NVIDIA GeForce RTX 4090',
    arch: 'x86_64',
  },
  // Same scoreboard: pp512 5174.69, tg128 158.16.
  'rtx-3090': {
    name: 'rtx-3090',
    memoryGb: 24,
    memoryBandwidthGbps: 936,
    prefillTflops: tflopsFromPp(5174.69),
    loadGbps: NVME_LOAD_GBPS,
    decodeEfficiency: efficiencyFromTg(158.16, 936),
    // llama.cpp PR #15802, llama 8B Q4_0 on an RTX 3090 at micro-batch 1/2/4: 155.02, 277.36, 468.95 t/s.
    batchBeta: 0.11,
    chip: 'NVIDIA GeForce RTX 3090',
    arch: 'x86_64',
  },
  // Same scoreboard (A100 80 GB): pp512 4849.53, tg128 190.88; bandwidth of the SXM part (NVIDIA datasheet).
  'a100-80g': {
    name: 'a100-80g',
    memoryGb: 80,
    memoryBandwidthGbps: 2039,
    prefillTflops: tflopsFromPp(4849.53),
    loadGbps: NVME_LOAD_GBPS,
    decodeEfficiency: efficiencyFromTg(190.88, 2039),
    // No published A100 micro-batch table found: the RTX 3090's β (same Ampere generation).
    batchBeta: 0.11,
    chip: 'NVIDIA A100 80GB',
    arch: 'x86_64',
  },
  // llama.cpp Apple-silicon table (discussion #4167), M2 Ultra 76 GPU cores: Q4_0 PP 1238.48, TG 94.27.
  'm2-ultra': {
    name: 'm2-ultra',
    memoryGb: 192,
    memoryBandwidthGbps: 800,
    prefillTflops: tflopsFromPp(1238.48),
    loadGbps: APPLE_LOAD_GBPS,
    decodeEfficiency: efficiencyFromTg(94.27, 800),
    // llama.cpp PR #16894, llama-batched-bench on Metal, Qwen2.5 7B Q8_0: S_TG 79.04, 136.37, 224.52 at B = 1, 2, 4.
    batchBeta: 0.15,
    chip: 'Apple M2 Ultra',
    arch: 'apple_silicon',
  },
  // Same table, M4 Pro 20 GPU cores: Q4_0 PP 439.78, TG 50.74.
  'm4-pro': {
    name: 'm4-pro',
    memoryGb: 48,
    memoryBandwidthGbps: 273,
    prefillTflops: tflopsFromPp(439.78),
    loadGbps: APPLE_LOAD_GBPS,
    decodeEfficiency: efficiencyFromTg(50.74, 273),
    batchBeta: 0.15,
    chip: 'Apple M4 Pro',
    arch: 'apple_silicon',
  },
  // normiebench result (brand-o/normiebench #40), M1 Max 64 GB, Llama 3.1 8B Q4_K_M (4.92 GB, 8.03 B):
  // pp512 499.58, tg128 46.2.
  'm1-max': {
    name: 'm1-max',
    memoryGb: 64,
    memoryBandwidthGbps: 400,
    prefillTflops: tflopsFromPp(499.58, 8.03e9),
    loadGbps: APPLE_LOAD_GBPS,
    decodeEfficiency: efficiencyFromTg(46.2, 400, 4.92),
    batchBeta: 0.15,
    chip: 'Apple M1 Max',
    arch: 'apple_silicon',
  },
  // llama.cpp issue #34, Core i9-13900K with DDR5-6400 (dual channel, 102.4 GB/s), 7B: tg 18.27 t/s (8 threads),
  // pp512 55.21 t/s (32 threads). A CPU is compute bound already at small batches: β = tg ÷ pp, so that the
  // batching curve levels off at the prompt-processing rate.
  cpu: {
    name: 'cpu',
    memoryGb: 64,
    memoryBandwidthGbps: 102.4,
    prefillTflops: tflopsFromPp(55.21),
    loadGbps: NVME_LOAD_GBPS,
    decodeEfficiency: efficiencyFromTg(18.27, 102.4),
    batchBeta: Math.round((18.27 / 55.21) * 100) / 100,
    chip: 'Intel Core i9-13900K',
    arch: 'x86_64',
  },
};

/** The spec behind a class name or an explicit spec; throws on an unknown class, listing the known ones. */
export function resolveHardware(hardware: string | HardwareSpec): HardwareSpec {
  if (typeof hardware !== 'string') return hardware;
  const spec = HARDWARE_CLASSES[hardware];
  if (spec === undefined) {
    throw new Error(`unknown hardware class '${hardware}' (known: ${Object.keys(HARDWARE_CLASSES).join(', ')})`);
  }
  return spec;
}
