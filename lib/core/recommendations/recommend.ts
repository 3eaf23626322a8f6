/**
 * The model-mix advice of `GET /dashboard/api/recommendations` (issue 22 item 4; anchor §6.5, §6.3 for
 * the shape): for each placeable node, largest memory first,
 * 1. usable memory = total − `RESERVE_GB` (the OS and the runtime), and no single new model above
 *    `SINGLE_MODEL_SHARE` of it;
 * 2. keep: the node's models that served requests in the demand window, most used first, while they fit;
 * 3. then for each category, ranked by the fleet's observed demand (then general, coding, reasoning,
 *    vision, fast-chat; embedding only when asked for), the best-quality catalog model that fits the
 *    memory left and the cap, and whose download fits the free disk (a model already on the node needs
 *    none), never a second model of a family on one node, and — when the best is already on two or more
 *    other nodes — the best one that is not, so the fleet spreads.
 * A pick the node already has says so (`already_available`). Nodes whose memory is unknown (polled
 * Ollama servers report none) get no advice and say why. Figures are the catalog's approximations
 * (./catalog). Pure: the demand and the clock come in.
 */
import type { NodeModel, NodeView } from '../fleet/node';
import { isPlaceable } from '../fleet/snapshot';
import { type CatalogModel, MODEL_CATALOG, type ModelCategory } from './catalog';
import { catalogEntry, categoryOf } from './model-category';

/** Memory left to the operating system and the runtime on every node, GB. */
export const RESERVE_GB = 6;
/** No single new model may take more than this share of a node's usable memory. */
export const SINGLE_MODEL_SHARE = 0.5;
/** A model already on this many other nodes is passed over for the next best, when there is one. */
export const SPREAD_THRESHOLD = 2;
const DEFAULT_ORDER: readonly ModelCategory[] = ['general', 'coding', 'reasoning', 'vision', 'fast-chat'];

export interface Demand {
  /** Requests per model across the fleet in the demand window. */
  readonly byModel: ReadonlyMap<string, number>;
  /** Requests per node, then per model, in the node demand window. */
  readonly byNodeModel: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

export type Priority = 'high' | 'medium' | 'low';

export interface Recommendation {
  readonly model: string;
  readonly display_name: string;
  readonly family: string;
  readonly category: ModelCategory;
  readonly parameters: string | null;
  readonly ram_gb: number;
  /** True when `ram_gb` is estimated from the size on disk (a model the catalog does not list). */
  readonly ram_estimated: boolean;
  readonly disk_gb: number | null;
  /** GB to download: 0 when the node has it. */
  readonly download_gb: number;
  readonly quality_score: number | null;
  readonly reason: string;
  readonly priority: Priority;
  readonly already_available: boolean;
  readonly loaded: boolean;
  /** This node's requests of the model in the node demand window. */
  readonly recent_requests: number;
}

export interface NodeAdvice {
  readonly node_id: string;
  readonly status: NodeView['status'];
  readonly total_ram_gb: number | null;
  readonly usable_ram_gb: number | null;
  readonly single_model_cap_gb: number | null;
  readonly current_models: readonly string[];
  readonly recommendations: readonly Recommendation[];
  readonly disk_total_gb: number | null;
  readonly disk_available_gb: number | null;
  readonly total_recommended_ram_gb: number;
  readonly ram_headroom_gb: number | null;
  readonly download_gb: number;
  /** Why the node got no advice, when it got none for a reason. */
  readonly note?: string;
}

const round1 = (value: number) => Math.round(value * 10) / 10;
/** RAM of a model the catalog does not list: its size on disk plus the catalog's overhead rule. */
const estimatedRamGb = (sizeBytes: number) => Math.ceil(((sizeBytes / 1e9) * 1.15 + 0.75) * 2) / 2;

function totalGbOf(node: NodeView): number | undefined {
  return node.memory?.totalGb ?? node.hardware.memoryTotalGb;
}

/** Categories by demand, most asked for first, then the default order; embedding only when asked for. */
export function rankCategories(categoryDemand: ReadonlyMap<ModelCategory, number>): ModelCategory[] {
  const asked = [...categoryDemand.entries()].filter(([, count]) => count > 0);
  const order = (category: ModelCategory) => {
    const index = DEFAULT_ORDER.indexOf(category);
    return index === -1 ? DEFAULT_ORDER.length : index;
  };
  asked.sort(([a, x], [b, y]) => y - x || order(a) - order(b));
  const ranked = asked.map(([category]) => category);
  for (const category of DEFAULT_ORDER) if (!ranked.includes(category)) ranked.push(category);
  return ranked;
}

/** The plan of one node while it is being filled. */
interface NodePlan {
  readonly node: NodeView;
  readonly cap: number;
  remaining: number;
  /** Free disk left for downloads; undefined when the node does not report its disk. */
  diskLeft: number | undefined;
  readonly families: Set<string>;
  readonly covered: Set<ModelCategory>;
  readonly picks: Recommendation[];
}

/** Nodes (ids) holding each catalog model, what the earlier nodes' advice adds included. */
type Holders = Map<string, Set<string>>;

function onNode(node: NodeView, entry: CatalogModel): NodeModel | undefined {
  return node.models.find((model) => catalogEntry(model.name) === entry);
}

function isLoaded(node: NodeView, name: string): boolean {
  return node.loaded.some((model) => model.name === name);
}

function keep(plan: NodePlan, model: NodeModel, requests: number): void {
  const entry = catalogEntry(model.name);
  const category = categoryOf(model.name, model) ?? 'general';
  const ram = entry?.ram_gb ?? estimatedRamGb(model.size);
  if (ram > plan.remaining) return;
  const family = entry?.family ?? (typeof model.details['family'] === 'string' ? model.details['family'] : model.name);
  plan.picks.push({
    model: model.name,
    display_name: entry?.display_name ?? model.name,
    family,
    category,
    parameters:
      entry?.parameters ??
      (typeof model.details['parameter_size'] === 'string' ? model.details['parameter_size'] : null),
    ram_gb: ram,
    ram_estimated: entry === undefined,
    disk_gb: model.size > 0 ? round1(model.size / 1e9) : null,
    download_gb: 0,
    quality_score: entry?.quality ?? null,
    reason: `In use on this node: ${requests} requests in the demand window; kept`,
    priority: 'high',
    already_available: true,
    loaded: isLoaded(plan.node, model.name),
    recent_requests: requests,
  });
  plan.remaining -= ram;
  plan.families.add(family);
  plan.covered.add(category);
}

function fits(plan: NodePlan, entry: CatalogModel): boolean {
  if (entry.ram_gb > Math.min(plan.remaining, plan.cap) || plan.families.has(entry.family)) return false;
  if (onNode(plan.node, entry) !== undefined || plan.diskLeft === undefined) return true;
  return entry.disk_gb <= plan.diskLeft;
}

/** The best fitting model of `category`, passing over one already on ≥ 2 other nodes when another fits. */
function bestFit(plan: NodePlan, category: ModelCategory, holders: Holders): CatalogModel | undefined {
  const candidates = MODEL_CATALOG.filter((entry) => entry.category === category && fits(plan, entry)).sort(
    (a, b) => b.quality - a.quality || a.ram_gb - b.ram_gb || (a.name < b.name ? -1 : 1),
  );
  const elsewhere = (entry: CatalogModel) =>
    [...(holders.get(entry.name) ?? [])].filter((id) => id !== plan.node.id).length;
  const spread = candidates.find(
    (entry) => onNode(plan.node, entry) !== undefined || elsewhere(entry) < SPREAD_THRESHOLD,
  );
  return spread ?? candidates[0];
}

function add(plan: NodePlan, entry: CatalogModel, category: ModelCategory, demand: number, top: boolean): void {
  const present = onNode(plan.node, entry);
  const name = present?.name ?? entry.name;
  const asked =
    demand > 0 ? `${demand} requests for ${category} models in the demand window` : `no ${category} model yet`;
  plan.picks.push({
    model: name,
    display_name: entry.display_name,
    family: entry.family,
    category,
    parameters: entry.parameters,
    ram_gb: entry.ram_gb,
    ram_estimated: false,
    disk_gb: entry.disk_gb,
    download_gb: present === undefined ? entry.disk_gb : 0,
    quality_score: entry.quality,
    reason: `Best-quality ${category} model that fits (${asked})${present === undefined ? '' : '; already on this node'}`,
    priority: top || demand > 0 ? 'high' : category === 'fast-chat' ? 'low' : 'medium',
    already_available: present !== undefined,
    loaded: isLoaded(plan.node, name),
    recent_requests: 0,
  });
  plan.remaining -= entry.ram_gb;
  if (present === undefined && plan.diskLeft !== undefined) plan.diskLeft -= entry.disk_gb;
  plan.families.add(entry.family);
  plan.covered.add(category);
}

export interface AdviseInput {
  readonly node: NodeView;
  readonly demand: Demand;
  readonly categories: readonly ModelCategory[];
  readonly categoryDemand: ReadonlyMap<ModelCategory, number>;
  readonly holders: Holders;
}

/** One node's advice; adds its picks to `holders` so later nodes spread. */
export function adviseNode(input: AdviseInput): NodeAdvice {
  const { node, demand, categories, categoryDemand, holders } = input;
  const total = totalGbOf(node);
  const base = {
    node_id: node.id,
    status: node.status,
    current_models: node.models.map((model) => model.name),
    disk_total_gb: node.disk?.totalGb ?? null,
    disk_available_gb: node.disk?.availableGb ?? null,
  };
  if (total === undefined) {
    const note = 'the node reports no memory (a polled Ollama server): no advice';
    const none = { total_ram_gb: null, usable_ram_gb: null, single_model_cap_gb: null, ram_headroom_gb: null };
    return { ...base, ...none, recommendations: [], total_recommended_ram_gb: 0, download_gb: 0, note };
  }
  const usable = Math.max(0, total - RESERVE_GB);
  const plan: NodePlan = {
    node,
    cap: usable * SINGLE_MODEL_SHARE,
    remaining: usable,
    diskLeft: node.disk?.availableGb,
    families: new Set(),
    covered: new Set(),
    picks: [],
  };
  const used = demand.byNodeModel.get(node.id) ?? new Map<string, number>();
  const kept = node.models
    .map((model) => [model, used.get(model.name) ?? 0] as const)
    .filter(([model, requests]) => requests > 0 && categoryOf(model.name, model) !== undefined)
    .sort(([a, x], [b, y]) => y - x || (a.name < b.name ? -1 : 1));
  for (const [model, requests] of kept) keep(plan, model, requests);
  categories.forEach((category, index) => {
    if (plan.covered.has(category)) return;
    const entry = bestFit(plan, category, holders);
    if (entry !== undefined) add(plan, entry, category, categoryDemand.get(category) ?? 0, index === 0);
  });
  for (const pick of plan.picks) {
    const entry = catalogEntry(pick.model);
    if (entry !== undefined) holders.set(entry.name, (holders.get(entry.name) ?? new Set()).add(node.id));
  }
  const recommended = plan.picks.reduce((sum, pick) => sum + pick.ram_gb, 0);
  return {
    ...base,
    total_ram_gb: round1(total),
    usable_ram_gb: round1(usable),
    single_model_cap_gb: round1(plan.cap),
    recommendations: plan.picks,
    total_recommended_ram_gb: round1(recommended),
    ram_headroom_gb: round1(usable - recommended),
    download_gb: round1(plan.picks.reduce((sum, pick) => sum + pick.download_gb, 0)),
  };
}

/** Where each catalog model is on disk now, by node id. */
export function currentHolders(nodes: readonly NodeView[]): Holders {
  const holders: Holders = new Map();
  for (const node of nodes) {
    for (const model of node.models) {
      const entry = catalogEntry(model.name);
      if (entry !== undefined) holders.set(entry.name, (holders.get(entry.name) ?? new Set()).add(node.id));
    }
  }
  return holders;
}

/** Placeable nodes, largest memory first (unknown memory last), then by id. */
export function nodesToAdvise(nodes: readonly NodeView[]): NodeView[] {
  const memory = (node: NodeView) => totalGbOf(node) ?? Number.NEGATIVE_INFINITY;
  return nodes.filter(isPlaceable).sort((a, b) => memory(b) - memory(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
