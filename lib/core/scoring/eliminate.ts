/**
 * Stage 1 of routing (issue: routing items 1 and 5; anchor §2.2): the rules that take a node out of
 * the running for a model before any scoring. A node the model is not placed on is never scored at all
 * (the snapshot's `placements` index holds only online and degraded nodes that have it): that is the
 * "model absent" rule, applied by lookup. The rest are checked here, first failing rule wins; offline
 * and draining are checked again so a snapshot built any other way cannot slip one through. Pure.
 */
import type { ModelPlacement } from '../fleet/node';
import { modelKindFor, type RoutingRequest } from './routing-request';

export type EliminationReason =
  | 'offline'
  | 'draining'
  | 'memory-critical'
  | 'wrong-kind'
  | 'no-vision'
  | 'no-tools'
  | 'does-not-fit'
  /**
   * The prompt estimate is far over the model's own maximum context (../context/context-window): no
   * `num_ctx` could hold it. Judged per request by ./rank-nodes, from the placement table's maxima.
   */
  | 'context-too-long'
  /** Taken out of routing for a while after failing (./outlier-ejection); applied per request by ./rank-nodes. */
  | 'ejected';

const BYTES_PER_GIB = 2 ** 30;

const DESCRIPTIONS: Readonly<Record<EliminationReason, string>> = {
  offline: 'node is offline',
  draining: 'node is draining',
  'memory-critical': 'node is under critical memory pressure',
  'wrong-kind': 'model does not do this kind of work',
  'no-vision': 'model cannot read images',
  'no-tools': 'model does not support tools',
  'does-not-fit': 'model does not fit in free memory, even with the other models unloaded',
  'context-too-long': "prompt is far longer than the model's context",
  ejected: 'node is ejected after failing',
};

/** Reasons that no amount of waiting fixes: the request itself asks for what the model is not. */
const PERMANENT: ReadonlySet<EliminationReason> = new Set(['wrong-kind', 'no-vision', 'no-tools', 'context-too-long']);

export function describeElimination(reason: EliminationReason): string {
  return DESCRIPTIONS[reason];
}

export function isPermanentElimination(reason: EliminationReason): boolean {
  return PERMANENT.has(reason);
}

/**
 * Polled nodes report no memory: they are never eliminated for fit. A model already hot on the node
 * fits by definition; an unknown size (0) eliminates nothing. Otherwise the model must fit in the free
 * memory plus what the node's other loaded models occupy: Ollama unloads idle models, least recently used
 * first, to make room for a load (research: ollama-runtime), so a node whose memory is full of models it
 * could unload can still serve — it pays a load and an eviction, which the score counts
 * (./placement-table `coldLoadMs`). Only a model bigger than all of that is refused, which is what kept the
 * reference from loading a 290 GB model onto a 512 GB machine.
 */
function fits(placement: ModelPlacement, resident: number): boolean {
  const memory = placement.node.memory;
  if (memory === undefined || placement.loaded !== undefined || resident <= 0) return true;
  return memory.availableGb * BYTES_PER_GIB + unloadableBytes(placement) >= resident;
}

/** Bytes the node's other loaded models occupy: what unloading them would free. */
export function unloadableBytes(placement: ModelPlacement): number {
  let bytes = 0;
  for (const loaded of placement.node.loaded) if (loaded.name !== placement.model?.name) bytes += loaded.size;
  return bytes;
}

/**
 * Why this placement cannot serve the request, or undefined when it can. `resident` is the model's
 * real size in bytes on this node (./resident-size), 0 when unknown.
 */
export function eliminate(
  placement: ModelPlacement,
  request: Pick<RoutingRequest, 'kind' | 'needsVision' | 'needsTools'>,
  resident: number,
): EliminationReason | undefined {
  const { node, model } = placement;
  if (node.status === 'offline') return 'offline';
  if (node.draining) return 'draining';
  if (node.memory?.pressure === 'critical') return 'memory-critical';
  if (placement.kind !== modelKindFor(request.kind)) return 'wrong-kind';
  // Inferred capabilities never include vision: an undescribed model is treated as blind (issue item 5).
  if (request.needsVision && (model === undefined || !model.capabilities.includes('vision'))) return 'no-vision';
  // Tools are only ruled out when the node described the model; inferred capabilities say nothing about them.
  if (request.needsTools === true && model?.described === true && !model.capabilities.includes('tools')) {
    return 'no-tools';
  }
  if (!fits(placement, resident)) return 'does-not-fit';
  return undefined;
}
