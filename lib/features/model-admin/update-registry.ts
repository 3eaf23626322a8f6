/**
 * After a delete or copy on nodes, their records show it at once, so `/api/tags` right after agrees
 * (issue 20 item 11), instead of waiting for the next poll or heartbeat (which then takes over). A
 * failure here never fails the call that was done; it is only logged.
 */
import type { NodeModel } from '../../core/fleet/node';
import { hasTag, modelNameKeys } from '../../core/fleet/snapshot';
import type { FleetRegistry } from '../../services/registry/registry';

/** What recording an admin call's effect takes of the registry. */
export type RegistryUpdates = Pick<FleetRegistry, 'record' | 'save' | 'recordModel'>;

function matches(name: string): (entry: { readonly name: string }) => boolean {
  const keys = new Set(modelNameKeys(name));
  return (entry) => keys.has(entry.name);
}

async function logged(what: string, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    console.error(`${what} failed: ${String(error)}`);
  }
}

/** Takes the model off each node's models and loaded models. */
export async function forgetDeletedModel(
  registry: RegistryUpdates,
  nodeIds: readonly string[],
  name: string,
): Promise<void> {
  const gone = matches(name);
  for (const nodeId of nodeIds) {
    await logged(`forgetting '${name}' on ${nodeId}`, async () => {
      const record = await registry.record(nodeId);
      if (record === undefined || !record.models.some(gone)) return;
      const models = record.models.filter((model) => !gone(model));
      await registry.save({ ...record, models, loaded: record.loaded.filter((model) => !gone(model)) });
    });
  }
}

/** Ollama lists a copy under the destination's name, `:latest` added, with the source's blobs. */
export async function recordCopiedModel(
  registry: RegistryUpdates,
  nodeIds: readonly string[],
  source: string,
  destination: string,
  now: number,
): Promise<void> {
  const name = hasTag(destination) ? destination : `${destination}:latest`;
  for (const nodeId of nodeIds) {
    await logged(`recording the copy '${name}' on ${nodeId}`, async () => {
      const original = (await registry.record(nodeId))?.models.find(matches(source));
      if (original === undefined) return;
      const copy: NodeModel = { ...original, name, modifiedAt: new Date(now).toISOString() };
      await registry.recordModel(nodeId, copy);
    });
  }
}
