/**
 * How many requests a node runs at once on one model (issue: routing item 2): an operator override for
 * the node when there is one, else the parallelism the node reports (`numParallel`, OLLAMA_NUM_PARALLEL,
 * 1 when unreported). The queue manager enforces it; the scorer divides queue depth by it. Pure.
 */
import type { NodeView } from '../fleet/node';

/** Per-node overrides by node id (settings); values below 1 or not whole are ignored. */
export type ConcurrencyOverrides = ReadonlyMap<string, number>;

function usable(value: number | undefined): value is number {
  return value !== undefined && Number.isInteger(value) && value >= 1;
}

export function concurrencyLimit(node: Pick<NodeView, 'id' | 'numParallel'>, overrides?: ConcurrencyOverrides): number {
  const override = overrides?.get(node.id);
  if (usable(override)) return override;
  return usable(node.numParallel) ? node.numParallel : 1;
}
