/**
 * The read-only fleet snapshot routing works from (ARCHITECTURE.md §3.5; types in `./node`): every record
 * with its liveness at `now`, and a model-name index of where each model can be served. Built in one
 * linear pass; read by the scorer on every request, so lookups are single `Map` gets. Pure.
 */
import type { Ejection } from './ejection';
import type { FleetSnapshot, ModelPlacement, NodeRecord, NodeView } from './node';
import { type LivenessThresholds, nodeStatus } from './node-status';
import { standingEjections } from './shared-ejections';

const LATEST = ':latest';

/** True when the name carries a tag (`llama3:8b`); a registry port (`host:5000/llama3`) is not a tag. */
export function hasTag(name: string): boolean {
  return name.slice(name.lastIndexOf('/') + 1).includes(':');
}

/**
 * The index keys for a model name: the name itself, plus its `:latest` twin — `foo` is also `foo:latest`
 * and `foo:latest` is also `foo` — as Ollama and Open WebUI resolve untagged names.
 */
export function modelNameKeys(name: string): readonly string[] {
  if (!hasTag(name)) return [name, `${name}${LATEST}`];
  if (name.endsWith(LATEST)) return [name, name.slice(0, -LATEST.length)];
  return [name];
}

/** Where a node may serve work: online or degraded, never offline or draining. */
export function isPlaceable(node: NodeView): boolean {
  return node.status !== 'offline' && !node.draining;
}

function compareIds(a: NodeView, b: NodeView): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function nodePlacements(node: NodeView): ModelPlacement[] {
  const placements: ModelPlacement[] = [];
  const loadedByName = new Map<string, NodeView['loaded'][number]>();
  for (const loaded of node.loaded) if (!loadedByName.has(loaded.name)) loadedByName.set(loaded.name, loaded);
  for (const model of node.models) {
    const loaded = loadedByName.get(model.name);
    placements.push({ node, kind: model.kind, backend: 'ollama', model, ...(loaded !== undefined ? { loaded } : {}) });
  }
  const sidecars = [
    ['image', node.sidecars.image],
    ['transcription', node.sidecars.transcription],
    ['text-embedding', node.sidecars.textEmbedding],
  ] as const;
  for (const [backend, sidecar] of sidecars) {
    for (const sidecarModel of sidecar?.models ?? []) {
      placements.push({ node, kind: sidecarModel.kind, backend, sidecarModel });
    }
  }
  return placements;
}

function placementName(placement: ModelPlacement): string {
  return placement.model?.name ?? placement.sidecarModel?.name ?? '';
}

/**
 * Nodes sorted by id with their status; placements indexed by every name key, in node-id order; the
 * `published` ejections read with the records that still stand at `now`.
 */
export function buildSnapshot(
  records: readonly NodeRecord[],
  now: number,
  thresholds: LivenessThresholds,
  published: readonly Ejection[] = [],
): FleetSnapshot {
  // `status` first: V8 gives a spread-then-add object a slow shape, and the scorer reads these in its loop.
  const nodes: NodeView[] = records.map((record) => ({ status: nodeStatus(record, now, thresholds), ...record }));
  nodes.sort(compareIds);
  const byId = new Map<string, NodeView>();
  const placements = new Map<string, ModelPlacement[]>();
  for (const node of nodes) {
    byId.set(node.id, node);
    if (!isPlaceable(node)) continue;
    for (const placement of nodePlacements(node)) {
      for (const key of modelNameKeys(placementName(placement))) {
        const list = placements.get(key);
        if (list === undefined) placements.set(key, [placement]);
        else list.push(placement);
      }
    }
  }
  const ejections = standingEjections(published, byId, now);
  return { takenAt: now, nodes, byId, placements, ...(ejections.length > 0 ? { ejections } : {}) };
}
