/**
 * Which fleet model serves a messages-style or responses-style request (spec §1 rule 4; issue: messages
 * item 2; anchor §2.8). Clients of those styles name models the fleet does not have (`claude-sonnet-4-5`,
 * `gpt-5-codex`), so, in order:
 * 1. an exact entry of the model map (a setting) wins;
 * 2. an id some node has (or has as `id:latest`) passes through;
 * 3. with auto-routing on, the best chat model loaded somewhere, else the best one on disk: for a `haiku`
 *    id (messages style) the smallest, a fast model; for every other id the largest. Requests with images
 *    consider only vision models, requests with tools prefer models that declare tool use; embedding,
 *    rerank, image and speech models are never chosen (they are not language models);
 * 4. the map's `default` entry;
 * 5. otherwise 404 naming the id.
 * Ties go to the model loaded on more nodes, then by name, so the choice is stable. Pure.
 */
import { NotFoundError } from '../errors';
import type { FleetSnapshot, NodeModel } from '../fleet/node';
import { isPlaceable } from '../fleet/snapshot';

export type ModelTier = 'fast' | 'large';

export interface ModelResolution {
  /** The fleet model to route to. */
  readonly model: string;
  /** How it was chosen: `map` (the setting), `fleet` (the id is on a node), `auto`, or `default`. */
  readonly via: 'map' | 'fleet' | 'auto' | 'default';
  /** The class auto-routing looked for. */
  readonly tier?: ModelTier;
}

export interface ResolveModelOptions {
  readonly map: ReadonlyMap<string, string>;
  readonly autoRoute: boolean;
  /** Messages style: the id's tier keyword picks the class; responses style: always the large class. */
  readonly tierKeywords: boolean;
  readonly needsVision: boolean;
  readonly needsTools: boolean;
}

/** The class an id asks for: `haiku` → a fast model; `sonnet`, `opus` and anything else → a larger one. */
export function tierOf(id: string, tierKeywords: boolean): ModelTier {
  return tierKeywords && id.toLowerCase().includes('haiku') ? 'fast' : 'large';
}

export function resolveModel(id: string, snapshot: FleetSnapshot, options: ResolveModelOptions): ModelResolution {
  const mapped = options.map.get(id);
  if (mapped !== undefined) return { model: mapped, via: 'map' };
  if (snapshot.placements.has(id)) return { model: id, via: 'fleet' };
  const tier = tierOf(id, options.tierKeywords);
  if (options.autoRoute) {
    const chosen = bestChatModel(snapshot, tier, options);
    if (chosen !== undefined) return { model: chosen, via: 'auto', tier };
  }
  const fallback = options.map.get('default');
  if (fallback !== undefined) return { model: fallback, via: 'default' };
  throw new NotFoundError(
    options.autoRoute
      ? `model '${id}' not found: no node has it and no chat model ${options.needsVision ? 'with vision ' : ''}is available to route it to`
      : `model '${id}' not found on any node, and it is not in FLEET_MODEL_MAP`,
    'model_not_found',
  );
}

interface Candidate {
  readonly name: string;
  readonly billions: number;
  readonly tools: boolean;
  loadedOn: number;
}

/**
 * Step 3 on its own: the best chat model for the tier (loaded somewhere first, then on disk), or
 * undefined when the fleet has none. Also how the context layers pick a model to summarise with.
 */
export function bestChatModel(
  snapshot: FleetSnapshot,
  tier: ModelTier,
  options: Pick<ResolveModelOptions, 'needsVision' | 'needsTools'>,
): string | undefined {
  const candidates = new Map<string, Candidate>();
  for (const node of snapshot.nodes) {
    if (!isPlaceable(node)) continue;
    const loaded = new Set(node.loaded.map((model) => model.name));
    for (const model of node.models) {
      if (!isChatModel(model) || (options.needsVision && !model.capabilities.includes('vision'))) continue;
      let candidate = candidates.get(model.name);
      if (candidate === undefined) {
        candidate = {
          name: model.name,
          billions: parameterBillions(model),
          tools: model.capabilities.includes('tools'),
          loadedOn: 0,
        };
        candidates.set(model.name, candidate);
      }
      if (loaded.has(model.name)) candidate.loadedOn += 1;
    }
  }
  let pool = [...candidates.values()];
  if (options.needsTools && pool.some((candidate) => candidate.tools)) pool = pool.filter((c) => c.tools);
  const hot = pool.filter((candidate) => candidate.loadedOn > 0);
  if (hot.length > 0) pool = hot;
  const sign = tier === 'fast' ? 1 : -1;
  pool.sort(
    (a, b) =>
      sign * (a.billions - b.billions) || b.loadedOn - a.loadedOn || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  return pool[0]?.name;
}

function isChatModel(model: NodeModel): boolean {
  return model.kind === 'llm' && !model.capabilities.includes('embedding') && !model.capabilities.includes('image');
}

/**
 * Parameters in billions from Ollama's `details.parameter_size` (`8.0B`, `567M`, `1.5T`); when the node
 * did not say, estimated from the size on disk at about 0.6 bytes a parameter (a 4-bit quantisation).
 */
export function parameterBillions(model: Pick<NodeModel, 'details' | 'size'>): number {
  const { parameter_size: text } = model.details as { readonly parameter_size?: unknown };
  if (typeof text === 'string') {
    const found = /^\s*([\d.]+)\s*([KMBT])/i.exec(text);
    if (found?.[1] !== undefined && found[2] !== undefined) {
      const scale = { K: 1e-6, M: 1e-3, B: 1, T: 1e3 }[found[2].toUpperCase() as 'K' | 'M' | 'B' | 'T'];
      const value = Number(found[1]) * scale;
      if (Number.isFinite(value) && value > 0) return value;
    }
  }
  return model.size / 0.6e9;
}
