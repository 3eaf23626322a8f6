/**
 * `GET /dashboard/api/recommendations` (issue 22 item 4; anchor §6.3, §6.5): the model-mix advice of
 * lib/core/recommendations fitted to the fleet's demand, read from the rollups — per model by hour over
 * the last 24 clock hours (this one included), per node and model by UTC day over the days those hours
 * touch (yesterday and today): four Queries at most, whatever the traffic. The answer is kept
 * `CACHE_MS` per instance (a page polling it costs nothing); `?refresh=1` works it out again.
 */

import { BadRequestError } from '../../core/errors';
import type { Demand } from '../../core/recommendations/recommend';
import { type RecommendationsReport, recommendationsReport } from '../../core/recommendations/recommendations-report';
import type { RollupReader } from '../../services/analytics/rollup-reader';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { FleetRegistry } from '../../services/registry/registry';

export interface RecommendationsDeps {
  readonly registry: Pick<FleetRegistry, 'snapshot'>;
  readonly rollups: Pick<RollupReader, 'nodeModelDays' | 'modelHours'>;
  readonly now?: () => number;
}

export const CACHE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

interface Cached {
  readonly at: number;
  readonly report: RecommendationsReport;
}

/** Per instance and per set of services (tests build several): a cache, not storage. */
const cache = new WeakMap<object, Cached>();

function add(map: Map<string, number>, key: string, amount: number): void {
  map.set(key, (map.get(key) ?? 0) + amount);
}

async function build(deps: RecommendationsDeps, now: number): Promise<RecommendationsReport> {
  const fleetStartMs = Math.floor(now / HOUR_MS) * HOUR_MS - 23 * HOUR_MS;
  const nodeStartMs = Math.floor((now - DAY_MS) / DAY_MS) * DAY_MS;
  const [snapshot, modelRows, nodeRows] = await Promise.all([
    deps.registry.snapshot(),
    deps.rollups.modelHours({ startMs: fleetStartMs, endMs: now }),
    deps.rollups.nodeModelDays({ startMs: nodeStartMs, endMs: now }),
  ]);
  const byModel = new Map<string, number>();
  for (const row of modelRows) if (row.model !== undefined) add(byModel, row.model, row.rollup.counters.requests);
  const byNodeModel = new Map<string, Map<string, number>>();
  for (const row of nodeRows) {
    if (row.nodeId === undefined || row.model === undefined) continue;
    const models = byNodeModel.get(row.nodeId) ?? new Map<string, number>();
    add(models, row.model, row.rollup.counters.requests);
    byNodeModel.set(row.nodeId, models);
  }
  const demand: Demand = { byModel, byNodeModel };
  return recommendationsReport(snapshot.nodes, demand, { fleetStartMs, nodeStartMs, endMs: now }, now);
}

function refreshParam(query: Readonly<Record<string, string>>): boolean {
  const raw = query['refresh'];
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new BadRequestError(`refresh must be 0 or 1, got "${raw}"`, 'refresh');
}

export async function serveRecommendations(
  deps: RecommendationsDeps,
  request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const refresh = refreshParam(request.query);
  const now = (deps.now ?? Date.now)();
  const hit = cache.get(deps);
  if (!refresh && hit !== undefined && now - hit.at < CACHE_MS) {
    await sendJson(response, { ...hit.report, cached: true, cache_age_s: Math.floor((now - hit.at) / 1000) });
    return;
  }
  const report = await build(deps, now);
  cache.set(deps, { at: now, report });
  await sendJson(response, { ...report, cached: false, cache_age_s: 0 });
}
