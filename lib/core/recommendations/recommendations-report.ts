/**
 * The whole answer of `GET /dashboard/api/recommendations` (issue 22 item 4; anchor §6.3 shape): every
 * placeable node's advice (./recommend), the demand it was fitted to (requests per category and the top
 * models), which nodes cover each category, and the categories asked for that no node covers. Pure.
 */
import type { NodeView } from '../fleet/node';
import type { ModelCategory } from './catalog';
import { categoryOf, type ModelTraits } from './model-category';
import {
  adviseNode,
  currentHolders,
  type Demand,
  type NodeAdvice,
  nodesToAdvise,
  RESERVE_GB,
  rankCategories,
  SINGLE_MODEL_SHARE,
} from './recommend';

export interface DemandWindows {
  /** Epoch ms: fleet demand (per model, by hour) counts from here to `endMs`. */
  readonly fleetStartMs: number;
  /** Epoch ms: a node's own demand (per node and model, by UTC day) counts from here to `endMs`. */
  readonly nodeStartMs: number;
  readonly endMs: number;
}

export interface RecommendationsReport {
  readonly nodes: readonly NodeAdvice[];
  readonly usage: {
    readonly total_requests_24h: number;
    readonly category_breakdown: Readonly<Record<string, number>>;
    readonly top_models: readonly { model: string; requests: number; category: ModelCategory | null }[];
    readonly category_coverage: Readonly<Record<string, readonly string[]>>;
  };
  readonly fleet_summary: string;
  readonly uncovered_categories: readonly ModelCategory[];
  readonly rules: {
    readonly reserve_gb: number;
    readonly single_model_share: number;
    readonly category_order: readonly ModelCategory[];
  };
  readonly demand_window: { readonly fleet_start: number; readonly node_start: number; readonly end: number };
  readonly generated_at: number;
}

const TOP_MODELS = 10;
const seconds = (ms: number) => Math.floor(ms / 1000);

/** What the fleet says about each model name: its kind and capabilities on the first node that has it. */
function traitsByName(nodes: readonly NodeView[]): ReadonlyMap<string, ModelTraits> {
  const traits = new Map<string, ModelTraits>();
  for (const node of nodes) for (const model of node.models) if (!traits.has(model.name)) traits.set(model.name, model);
  return traits;
}

function coverage(advice: readonly NodeAdvice[]): Map<ModelCategory, string[]> {
  const covered = new Map<ModelCategory, string[]>();
  for (const node of advice) {
    for (const pick of node.recommendations) {
      const ids = covered.get(pick.category) ?? [];
      if (!ids.includes(node.node_id)) ids.push(node.node_id);
      covered.set(pick.category, ids);
    }
  }
  return covered;
}

function summary(advice: readonly NodeAdvice[], covered: Map<ModelCategory, string[]>, uncovered: string[]): string {
  const usable = advice.reduce((sum, node) => sum + (node.usable_ram_gb ?? 0), 0);
  const parts = [...covered.entries()].map(([category, ids]) => `${category} on ${ids.length}`);
  const head = `${advice.length} node${advice.length === 1 ? '' : 's'}, ${Math.round(usable)} GB usable`;
  const gaps = uncovered.length > 0 ? `; nothing fits for ${uncovered.join(', ')}` : '';
  return parts.length === 0 ? `${head}: no advice${gaps}` : `${head}: ${parts.join(', ')}${gaps}`;
}

export function recommendationsReport(
  nodes: readonly NodeView[],
  demand: Demand,
  windows: DemandWindows,
  now: number,
): RecommendationsReport {
  const traits = traitsByName(nodes);
  const categoryDemand = new Map<ModelCategory, number>();
  let total = 0;
  const top = [...demand.byModel.entries()]
    .filter(([, requests]) => requests > 0)
    .map(([model, requests]) => {
      total += requests;
      const category = categoryOf(model, traits.get(model)) ?? null;
      if (category !== null) categoryDemand.set(category, (categoryDemand.get(category) ?? 0) + requests);
      return { model, requests, category };
    })
    .sort((a, b) => b.requests - a.requests || (a.model < b.model ? -1 : 1));
  const categories = rankCategories(categoryDemand);
  const holders = currentHolders(nodes);
  const advice = nodesToAdvise(nodes).map((node) => adviseNode({ node, demand, categories, categoryDemand, holders }));
  const covered = coverage(advice);
  const uncovered = categories.filter((category) => !covered.has(category) && (categoryDemand.get(category) ?? 0) > 0);
  return {
    nodes: advice,
    usage: {
      total_requests_24h: total,
      category_breakdown: Object.fromEntries(categoryDemand),
      top_models: top.slice(0, TOP_MODELS),
      category_coverage: Object.fromEntries(covered),
    },
    fleet_summary: summary(advice, covered, uncovered),
    uncovered_categories: uncovered,
    rules: { reserve_gb: RESERVE_GB, single_model_share: SINGLE_MODEL_SHARE, category_order: categories },
    demand_window: {
      fleet_start: seconds(windows.fleetStartMs),
      node_start: seconds(windows.nodeStartMs),
      end: seconds(windows.endMs),
    },
    generated_at: seconds(now),
  };
}
