/**
 * `GET /v1/models` body (HTTP interface §2 "Model entry, GET /v1/models", §4.2; protocols.md §5.2):
 * every language, image and embedding model on online and degraded nodes — runtime and sidecar — once
 * per id, with `owned_by` naming the backend that serves it. Rerankers and speech-to-text models are
 * not OpenAI "models" a client can call through these routes, so they are left out. Pure.
 */
import type { FleetSnapshot, ModelKind, SidecarModel } from '../fleet/node';
import { isPlaceable } from '../fleet/snapshot';

export interface OpenAIModel {
  readonly id: string;
  readonly object: 'model';
  /** Unix seconds. */
  readonly created: number;
  readonly owned_by: string;
}

export interface OpenAIModelList {
  readonly object: 'list';
  readonly data: readonly OpenAIModel[];
}

const LISTED_KINDS: ReadonlySet<ModelKind> = new Set(['llm', 'image', 'embedding']);

/** The image backend from the sidecar's binary (`mflux-generate-…` → `mflux`, `diffusionkit-cli` → `diffusionkit`). */
export function imageBackendName(model: SidecarModel): string {
  const binary = (model.binary ?? '').toLowerCase();
  if (binary.startsWith('mflux')) return 'mflux';
  if (binary.startsWith('diffusionkit')) return 'diffusionkit';
  return binary !== '' ? binary : 'image';
}

interface ModelOwner {
  ownedBy: string;
  modifiedAt: string;
}

/**
 * When several backends serve one id: the node's runtime (`ollama`) wins, since that is where a plain
 * request for the id goes; between sidecar backends the alphabetically first. `created` comes from the
 * first node (by id) that reports a modification time for the runtime model.
 */
function claim(owners: Map<string, ModelOwner>, id: string, ownedBy: string, modifiedAt: string): void {
  const current = owners.get(id);
  if (current === undefined) {
    owners.set(id, { ownedBy, modifiedAt });
    return;
  }
  if (current.modifiedAt === '') current.modifiedAt = modifiedAt;
  const rank = (owner: string) => (owner === 'ollama' ? '' : owner);
  if (rank(ownedBy) < rank(current.ownedBy)) current.ownedBy = ownedBy;
}

function createdSeconds(modifiedAt: string, now: number): number {
  const at = modifiedAt === '' ? Number.NaN : Date.parse(modifiedAt);
  return Math.floor((Number.isNaN(at) ? now : at) / 1000);
}

export function toOpenAIModels(snapshot: FleetSnapshot, now: number): OpenAIModelList {
  const owners = new Map<string, ModelOwner>();
  for (const node of snapshot.nodes) {
    if (!isPlaceable(node)) continue;
    for (const model of node.models) {
      if (LISTED_KINDS.has(model.kind)) claim(owners, model.name, 'ollama', model.modifiedAt);
    }
    for (const model of node.sidecars.image?.models ?? []) claim(owners, model.name, imageBackendName(model), '');
    for (const model of node.sidecars.textEmbedding?.models ?? []) {
      if (model.kind === 'embedding') claim(owners, model.name, 'fastembed', '');
    }
  }
  const data = [...owners.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(
      ([id, owner]): OpenAIModel => ({
        id,
        object: 'model',
        created: createdSeconds(owner.modifiedAt, now),
        owned_by: owner.ownedBy,
      }),
    );
  return { object: 'list', data };
}
