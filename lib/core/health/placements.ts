/**
 * Where a model can be served, as the checks ask it: by the name a client or the config uses (a bare
 * name matches its `:latest`), and whether any copy is hot. Pure.
 */
import type { FleetSnapshot, ModelKind, ModelPlacement } from '../fleet/node';
import { modelNameKeys } from '../fleet/snapshot';

export function placementsOf(snapshot: FleetSnapshot, model: string): readonly ModelPlacement[] {
  for (const key of modelNameKeys(model)) {
    const found = snapshot.placements.get(key);
    if (found !== undefined && found.length > 0) return found;
  }
  return [];
}

/** A copy is hot on some node (a sidecar's models always are). */
export function isHot(placements: readonly ModelPlacement[]): boolean {
  return placements.some((placement) => placement.loaded !== undefined || placement.backend !== 'ollama');
}

/** Some placeable node serves a model of this kind. */
export function kindServed(snapshot: FleetSnapshot, kind: ModelKind): boolean {
  for (const placements of snapshot.placements.values()) {
    if (placements.some((placement) => placement.kind === kind)) return true;
  }
  return false;
}
