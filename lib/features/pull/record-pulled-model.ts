/**
 * After a pull succeeds, the node's model list shows the model at once (spec §4.4 `POST /api/pull`;
 * anchor §4.5 "added to the node's models at once"): the node's Ollama is asked for its listing (the
 * poller's own pass, `/api/show` for the new model only) and the model's entry is written into the
 * node's record, for agent nodes as for polled ones; the next heartbeat or poll then takes over. When
 * the node cannot be asked, an entry inferred from the name and the pulled layers' sizes stands in.
 */

import { inferCapabilities, kindFromCapabilities } from '../../core/fleet/model-kind';
import type { NodeModel, NodeView } from '../../core/fleet/node';
import { hasTag, modelNameKeys } from '../../core/fleet/snapshot';
import type { DescribeModels } from '../../services/node-client/describe-models';
import { pollNode } from '../../services/registry/poller';
import type { FleetRegistry } from '../../services/registry/registry';

export interface RecordPulledModelDeps {
  readonly registry: Pick<FleetRegistry, 'recordModel'>;
  readonly describe: DescribeModels;
  readonly now?: () => number;
  /** Budget for each call to the node. */
  readonly timeoutMs?: number;
}

/** The entry used when the node's listing could not be had: the name as Ollama lists it, capabilities guessed. */
export function inferredPulledModel(name: string, sizeBytes: number, now: number): NodeModel {
  const capabilities = inferCapabilities(name);
  return {
    name: hasTag(name) ? name : `${name}:latest`,
    kind: kindFromCapabilities(capabilities),
    size: sizeBytes,
    digest: '',
    modifiedAt: new Date(now).toISOString(),
    details: {},
    capabilities,
  };
}

/** Finds the pulled model in the node's own listing, else infers it, and records it on the node. */
export async function recordPulledModel(
  node: Pick<NodeView, 'id' | 'url'>,
  name: string,
  layerBytes: number,
  deps: RecordPulledModelDeps,
): Promise<NodeModel> {
  const now = deps.now ?? Date.now;
  // Ollama lists names in lower case (`Llama3` is pulled as `llama3:latest`).
  const keys = new Set(modelNameKeys(name.toLowerCase()));
  const pulled = (entry: string) => keys.has(entry.toLowerCase());
  const polled = await pollNode({ id: node.id, url: node.url }, undefined, {
    now,
    describe: (url, names) => deps.describe(url, names.filter(pulled)),
    timeoutMs: deps.timeoutMs ?? 5000,
  });
  const model = polled.models.find((entry) => pulled(entry.name)) ?? inferredPulledModel(name, layerBytes, now());
  await deps.registry.recordModel(node.id, model);
  return model;
}
