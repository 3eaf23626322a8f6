/**
 * The node a model pull goes to (spec §4.4 `POST /api/pull`: `node_id` or the best node; 404 unknown
 * node, 503 no node with enough memory). Pulls are not routed by the scorer; the rule is:
 * - `node_id` named: that node, whatever its memory (the operator chose; a pull needs disk, not memory).
 *   Unknown → 404; known but offline or draining → 503 (it exists, it cannot take work now).
 * - otherwise, among placeable nodes (online or degraded, not draining):
 *   1. a node that already has the model (pulling updates it in place, no new disk), most free memory first;
 *   2. else a node with known memory that fits the model's size (`pull-size.ts`), the most available
 *      memory first (`availableGb` × 10⁹ bytes, the smaller reading of "GB");
 *   3. else a polled node (Ollama reports no memory): eligible only when no node with known memory
 *      fits, ranked last, by id;
 *   4. else 503.
 * Ties go by node id, so the choice is stable. Pure.
 */

import { ServiceUnavailableError } from '../../core/errors';
import type { FleetSnapshot, NodeView } from '../../core/fleet/node';
import { reachableNode } from '../../core/fleet/reachable-node';
import { isPlaceable, modelNameKeys } from '../../core/fleet/snapshot';
import { type PullSize, pullSize } from './pull-size';

export interface PullChoice {
  readonly node: NodeView;
  readonly size: PullSize;
  /** Why this node, for the trace and logs. */
  readonly reason: string;
}

const BYTES_PER_GB = 1e9;

function gb(bytes: number): string {
  return (bytes / BYTES_PER_GB).toFixed(1);
}

/** Most available memory first; unknown memory last; then by id. */
function byFreeMemory(a: NodeView, b: NodeView): number {
  const free = (node: NodeView) => node.memory?.availableGb ?? Number.NEGATIVE_INFINITY;
  if (free(a) !== free(b)) return free(b) - free(a);
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function namedNode(snapshot: FleetSnapshot, nodeId: string, size: PullSize): PullChoice {
  return { node: reachableNode(snapshot, nodeId), size, reason: 'node_id' };
}

export function choosePullNode(snapshot: FleetSnapshot, model: string, nodeId?: string): PullChoice {
  const size = pullSize(snapshot, model);
  if (nodeId !== undefined) return namedNode(snapshot, nodeId, size);
  const placeable = snapshot.nodes.filter(isPlaceable);
  const keys = new Set(modelNameKeys(model));
  const holders = placeable.filter((node) => node.models.some((entry) => keys.has(entry.name))).sort(byFreeMemory);
  const holder = holders[0];
  if (holder !== undefined) return { node: holder, size, reason: 'has the model: the pull updates it' };
  const fits = placeable
    .filter((node) => node.memory !== undefined && node.memory.availableGb * BYTES_PER_GB >= size.bytes)
    .sort(byFreeMemory);
  const best = fits[0];
  if (best !== undefined) {
    return {
      node: best,
      size,
      reason: `most available memory: ${best.memory?.availableGb} GB free, needs about ${gb(size.bytes)} GB`,
    };
  }
  const polled = placeable.filter((node) => node.memory === undefined).sort(byFreeMemory)[0];
  if (polled !== undefined) return { node: polled, size, reason: 'memory unknown (polled node); no other node fits' };
  if (placeable.length === 0) throw new ServiceUnavailableError(`no node is online to pull '${model}' onto`);
  throw new ServiceUnavailableError(
    `no node has enough available memory to pull '${model}' (needs about ${gb(size.bytes)} GB)`,
    // Memory frees as models unload: waiting can help, so the 503 says when to come back.
    { code: 'insufficient_memory', retryAfterSeconds: 30 },
  );
}
