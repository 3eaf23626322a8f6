/**
 * What a benchmark run loads, and how hard (issue 22 item 6; anchor §6.6, and its §9 failure: a benchmark
 * must not take the fleet down): chat models hot on an online node, embedding models, image models, each
 * with a bounded number of workers — per node, never more than the node runs at once on the model
 * (../scoring/concurrency-limit), and at most `WORKERS_PER_NODE` of a type. Draining and offline nodes
 * take no load. Pure.
 */
import type { FleetSnapshot, ModelKind, ModelPlacement } from '../fleet/node';
import { type ConcurrencyOverrides, concurrencyLimit } from '../scoring/concurrency-limit';
import type { BenchmarkModelType } from './benchmark-report';

export interface BenchmarkTarget {
  readonly type: BenchmarkModelType;
  readonly model: string;
  /** Concurrent request loops on this model: the sum of its nodes' shares. */
  readonly workers: number;
  readonly nodeIds: readonly string[];
}

/** The most request loops a node gets per model (the reference caps a model at 6, a node's budget at 8). */
export const WORKERS_PER_NODE: Readonly<Record<BenchmarkModelType, number>> = { llm: 4, embed: 2, image: 1 };

const KIND: Readonly<Record<BenchmarkModelType, ModelKind>> = { llm: 'llm', embed: 'embedding', image: 'image' };

/** The placements index a model under its `:latest` twin too: each model is loaded once, by its own name. */
function ownName(placement: ModelPlacement): string | undefined {
  return placement.model?.name ?? placement.sidecarModel?.name;
}

function takesLoad(placement: ModelPlacement, type: BenchmarkModelType, model: string): boolean {
  if (placement.kind !== KIND[type] || ownName(placement) !== model) return false;
  if (placement.node.status !== 'online' || placement.node.draining) return false;
  // A chat model not hot would be loaded by the run (minutes, and evicting someone's model): left out.
  return type !== 'llm' || placement.loaded !== undefined;
}

export function benchmarkTargets(
  snapshot: Pick<FleetSnapshot, 'placements'>,
  types: readonly BenchmarkModelType[],
  overrides?: ConcurrencyOverrides,
): BenchmarkTarget[] {
  const targets: BenchmarkTarget[] = [];
  for (const type of types) {
    for (const [model, placements] of snapshot.placements) {
      const serving = placements.filter((placement) => takesLoad(placement, type, model));
      if (serving.length === 0) continue;
      let workers = 0;
      for (const placement of serving) {
        workers += Math.min(WORKERS_PER_NODE[type], concurrencyLimit(placement.node, overrides));
      }
      targets.push({ type, model, workers, nodeIds: serving.map((placement) => placement.node.id) });
    }
  }
  return targets.sort((a, b) => a.type.localeCompare(b.type) || a.model.localeCompare(b.model));
}
