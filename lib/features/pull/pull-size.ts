/**
 * How much memory a pulled model will need, for choosing the node it goes to (spec §4.4 `POST /api/pull`:
 * 503 when no node has enough memory). The rule:
 * 1. a node that has the model says: the largest on-disk size of that name (or its `:latest` twin) on
 *    any node, offline ones included;
 * 2. else an estimate from the parameter count in the name (`7b`, `0.5b`, `270m`, `8x7b`): bits per
 *    weight from the quantisation the name states (`fp16`/`bf16` 16, `q8` 8.5, `q6` 6.6, `q5` 5.5,
 *    otherwise 4.5 — Q4_K_M, Ollama's default), plus 20 % for the KV cache and buffers and 0.5 GB for
 *    the runtime;
 * 3. no count in the name: a fixed floor of 8 GB (an untagged name is usually a 7–9 B model, ~5 GB).
 * Pure.
 */
import type { FleetSnapshot } from '../../core/fleet/node';
import { modelNameKeys } from '../../core/fleet/snapshot';

export interface PullSize {
  readonly bytes: number;
  /** `fleet`: a node has the model and said; `estimate`: from the name; `floor`: nothing to go on. */
  readonly source: 'fleet' | 'estimate' | 'floor';
}

export const SIZE_FLOOR_BYTES = 8e9;
const OVERHEAD_FACTOR = 1.2;
const RUNTIME_BYTES = 0.5e9;

/** Parameters the name states, or undefined. Mixtures (`8x7b`) count every expert. */
export function parameterCount(name: string): number | undefined {
  const lower = name.toLowerCase();
  const counts: number[] = [];
  for (const match of lower.matchAll(/(?<![a-z0-9.])(\d+)x(\d+(?:\.\d+)?)b(?![a-z0-9])/g)) {
    counts.push(Number(match[1]) * Number(match[2]) * 1e9);
  }
  for (const match of lower.matchAll(/(?<![a-z0-9.x])(\d+(?:\.\d+)?)([bm])(?![a-z0-9])/g)) {
    counts.push(Number(match[1]) * (match[2] === 'b' ? 1e9 : 1e6));
  }
  const largest = Math.max(0, ...counts);
  return largest > 0 ? largest : undefined;
}

/** Bits per weight for the quantisation a name states (`llama3.1:8b-instruct-fp16`). */
export function bitsPerWeight(name: string): number {
  const lower = name.toLowerCase();
  if (/(^|[^a-z0-9])(fp16|f16|bf16)([^a-z0-9]|$)/.test(lower)) return 16;
  if (/(^|[^a-z0-9])q8/.test(lower)) return 8.5;
  if (/(^|[^a-z0-9])q6/.test(lower)) return 6.6;
  if (/(^|[^a-z0-9])q5/.test(lower)) return 5.5;
  return 4.5;
}

/** The estimate of rules 2 and 3. */
export function estimatePullBytes(name: string): PullSize {
  const parameters = parameterCount(name);
  if (parameters === undefined) return { bytes: SIZE_FLOOR_BYTES, source: 'floor' };
  const weights = (parameters * bitsPerWeight(name)) / 8;
  return { bytes: Math.round(weights * OVERHEAD_FACTOR + RUNTIME_BYTES), source: 'estimate' };
}

export function pullSize(snapshot: Pick<FleetSnapshot, 'nodes'>, name: string): PullSize {
  const keys = new Set(modelNameKeys(name));
  let largest = 0;
  for (const node of snapshot.nodes) {
    for (const model of node.models) if (keys.has(model.name) && model.size > largest) largest = model.size;
  }
  return largest > 0 ? { bytes: largest, source: 'fleet' } : estimatePullBytes(name);
}
