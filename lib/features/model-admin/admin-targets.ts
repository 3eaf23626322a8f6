/**
 * The nodes a model-admin call (`DELETE /api/delete`, `POST /api/copy`; issue 20 item 11) goes to:
 * - `node_id` named: that node (404 unknown; 503 offline or draining: it cannot take work now), and the
 *   node's own Ollama decides whether it has the model — the record may be a heartbeat behind;
 * - otherwise every online or degraded node whose runtime holds the model (`foo` is also `foo:latest`),
 *   by id. Offline nodes are not reached: a model on one of them shows again when it comes back.
 * A model served only by a node agent's sidecar (image, speech-to-text, text embedding, rerank) is no
 * Ollama model: 400 naming how to remove it on the node instead. No holder at all: 404 `notFound`. Pure.
 */

import { BadRequestError, NotFoundError } from '../../core/errors';
import type { FleetSnapshot, NodeView, SidecarModel } from '../../core/fleet/node';
import { reachableNode } from '../../core/fleet/reachable-node';
import { isPlaceable, modelNameKeys } from '../../core/fleet/snapshot';

const HF_CACHE = "delete its weights from the node's Hugging Face cache (`huggingface-cli delete-cache`)";

function removalAdvice(backend: 'image' | 'transcription' | 'textEmbedding', model: SidecarModel): string {
  switch (backend) {
    case 'image': {
      const tool = model.binary?.startsWith('diffusionkit') === true ? 'diffusionkit' : 'mflux';
      return `${HF_CACHE}, or uninstall ${tool} (\`uv tool uninstall ${tool}\`), which removes every model it serves`;
    }
    case 'transcription':
      return `${HF_CACHE}, or uninstall mlx-qwen3-asr (\`pip uninstall mlx-qwen3-asr\`)`;
    case 'textEmbedding':
      return "delete it from the node's fastembed cache (the sidecar downloads a model again when it is next used)";
  }
}

const BACKEND_NAMES = { image: 'image', transcription: 'speech-to-text', textEmbedding: 'text-embedding' } as const;

/** The 400 for a model a sidecar serves on one of `nodes` (and no runtime there has), else undefined. */
export function sidecarOnlyRefusal(name: string, nodes: readonly NodeView[], action: string): string | undefined {
  const keys = new Set(modelNameKeys(name));
  for (const node of nodes) {
    for (const backend of ['image', 'transcription', 'textEmbedding'] as const) {
      const model = node.sidecars[backend]?.models.find((entry) => keys.has(entry.name));
      if (model === undefined) continue;
      return (
        `'${name}' is served by the ${BACKEND_NAMES[backend]} sidecar of node '${node.id}', not by its Ollama, ` +
        `so it cannot be ${action} through the Ollama API: on that node, ${removalAdvice(backend, model)}`
      );
    }
  }
  return undefined;
}

function holds(node: NodeView, keys: ReadonlySet<string>): boolean {
  return node.models.some((model) => keys.has(model.name));
}

function namedNode(snapshot: FleetSnapshot, nodeId: string, name: string, action: string): NodeView {
  const node = reachableNode(snapshot, nodeId);
  const refusal = holds(node, new Set(modelNameKeys(name))) ? undefined : sidecarOnlyRefusal(name, [node], action);
  if (refusal !== undefined) throw new BadRequestError(refusal, 'model');
  return node;
}

export interface AdminTargetOptions {
  /** The model, as the client named it. */
  readonly name: string;
  /** The router's `node_id`, trimmed; undefined = every node that holds the model. */
  readonly nodeId?: string | undefined;
  /** Past participle for messages: `deleted`, `copied`. */
  readonly action: string;
  /** The 404 message when no node holds the model (Ollama words it per route). */
  readonly notFound: string;
}

export function adminTargets(snapshot: FleetSnapshot, options: AdminTargetOptions): NodeView[] {
  const { name, nodeId, action } = options;
  if (nodeId !== undefined) return [namedNode(snapshot, nodeId, name, action)];
  const placeable = snapshot.nodes.filter(isPlaceable);
  const keys = new Set(modelNameKeys(name));
  const holders = placeable.filter((node) => holds(node, keys));
  if (holders.length > 0) return holders;
  const refusal = sidecarOnlyRefusal(name, placeable, action);
  if (refusal !== undefined) throw new BadRequestError(refusal, 'model');
  throw new NotFoundError(options.notFound, 'model_not_found');
}
