/**
 * The fleet's image models (spec §2 "Image model entry", §4.5 `GET /api/image-models`; anchor §4.3): one
 * entry per (name, backend) across the online and degraded nodes that take work — sidecar models with
 * the backend their binary names, Ollama-native image models with backend `ollama` — each listing its
 * nodes; sorted by name, then backend, so the answer is deterministic. Also the 404 of a request for an
 * image model no node has, which names the ones there are. Pure.
 */
import { NotFoundError } from '../../core/errors';
import type { FleetSnapshot } from '../../core/fleet/node';
import { isPlaceable } from '../../core/fleet/snapshot';
import { imageBackendOf } from '../../core/protocols/images/image-backend';
import type { ImageModelEntry } from '../../core/wire/images';

interface Group {
  readonly name: string;
  readonly backend: string;
  readonly nodes: Set<string>;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function imageModelEntries(snapshot: FleetSnapshot): ImageModelEntry[] {
  const groups = new Map<string, Group>();
  const add = (name: string, backend: string, nodeId: string) => {
    const key = `${name}\u0000${backend}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { name, backend, nodes: new Set() };
      groups.set(key, group);
    }
    group.nodes.add(nodeId);
  };
  for (const node of snapshot.nodes) {
    if (!isPlaceable(node)) continue;
    for (const model of node.models) if (model.kind === 'image') add(model.name, 'ollama', node.id);
    for (const model of node.sidecars.image?.models ?? []) add(model.name, imageBackendOf(model.binary), node.id);
  }
  return [...groups.values()]
    .sort((a, b) => compare(a.name, b.name) || compare(a.backend, b.backend))
    .map((group) => ({
      name: group.name,
      type: 'image',
      backend: group.backend,
      fleet_nodes: [...group.nodes].sort(compare),
    }));
}

/** True when a node that takes work can generate with `model` (its `:latest` twin included). */
export function isImageModel(snapshot: FleetSnapshot, model: string): boolean {
  return snapshot.placements.get(model)?.some((placement) => placement.kind === 'image') === true;
}

/** Unless one of the models is an image model somewhere, the 404 naming the image models there are. */
export function requireImageModel(snapshot: FleetSnapshot, models: readonly string[]): void {
  if (models.some((model) => isImageModel(snapshot, model))) return;
  const names = [...new Set(imageModelEntries(snapshot).map((entry) => entry.name))];
  const available =
    names.length > 0 ? `image models in the fleet: ${names.join(', ')}` : 'no node in the fleet has an image model';
  const asked = models.map((model) => `'${model}'`).join(', ');
  throw new NotFoundError(`image model ${asked} not found on any node; ${available}`, 'model_not_found');
}
