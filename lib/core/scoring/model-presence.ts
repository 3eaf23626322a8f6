/**
 * Whether a model exists anywhere in the fleet, offline nodes included (issue: routing item 3, anchor
 * §2.4): the line between 404 (no node has it) and 503 (nodes have it, none can take it now). Only
 * asked on the error path, so a scan of every node is fine. Names match as the snapshot's index
 * matches them (`foo` is `foo:latest`). Pure.
 */
import type { FleetSnapshot } from '../fleet/node';
import { modelNameKeys } from '../fleet/snapshot';

export function modelOnAnyNode(snapshot: FleetSnapshot, model: string): boolean {
  const names = new Set(modelNameKeys(model));
  return snapshot.nodes.some((node) => {
    if (node.models.some((entry) => names.has(entry.name))) return true;
    const { image, transcription, textEmbedding } = node.sidecars;
    return [image, transcription, textEmbedding].some((sidecar) =>
      sidecar?.models.some((entry) => names.has(entry.name)),
    );
  });
}
