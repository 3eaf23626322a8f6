/**
 * `GET /dashboard/api/context-usage` (issue 22 item 2; spec §2 "Context usage record"): per model, how
 * much of its context the requests of `days` (7) or `start_ts`/`end_ts` used against what its loaded
 * copies allocate, and the context to run it with (lib/core/analytics/context-usage). Reads the window's
 * day × node × model rollups, the 24 hours before its end per model, and the registry's snapshot.
 */
import { allocatedContexts, contextUsage } from '../../core/analytics/context-usage';
import { PERCENTILE_ERROR_PCT } from '../../core/analytics/rollup-figures';
import { windowParam } from '../../core/analytics/window';
import type { RollupReader } from '../../services/analytics/rollup-reader';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { FleetRegistry } from '../../services/registry/registry';

/** What the context usage read uses: the rollups, the fleet's snapshot, and a clock. */
export interface ContextUsageDeps {
  readonly rollups: Pick<RollupReader, 'nodeModelDays' | 'modelHours'>;
  readonly registry: Pick<FleetRegistry, 'snapshot'>;
  readonly now?: () => number;
}

const DAY_MS = 86_400_000;

export async function serveContextUsage(
  deps: ContextUsageDeps,
  request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const { window, count } = windowParam(request.query, (deps.now ?? Date.now)(), 'days', 7);
  const [days, hours, snapshot] = await Promise.all([
    deps.rollups.nodeModelDays(window),
    deps.rollups.modelHours({ startMs: window.endMs - DAY_MS, endMs: window.endMs }),
    deps.registry.snapshot(),
  ]);
  const models = contextUsage({ window: days, last24h: hours, allocated: allocatedContexts(snapshot.nodes) });
  await sendJson(response, { days: count, percentile_error_pct: PERCENTILE_ERROR_PCT, models });
}
