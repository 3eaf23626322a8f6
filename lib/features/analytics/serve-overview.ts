/**
 * `GET /dashboard/api/overview` (issue 22 item 2): the page header's figures — all-time totals, the last
 * 24 UTC hours, nodes, models and the router's queues (lib/core/analytics/overview).
 */
import { type OverviewView, overviewView } from '../../core/analytics/overview';
import type { QueueState } from '../../core/fleet/queue-entry';
import type { ReadCache } from '../../services/analytics/read-cache';
import type { RollupReader } from '../../services/analytics/rollup-reader';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { FleetRegistry } from '../../services/registry/registry';

export interface OverviewDeps {
  readonly rollups: Pick<RollupReader, 'totals' | 'fleetHours'>;
  readonly registry: Pick<FleetRegistry, 'snapshot'>;
  /** Every instance's queues: this instance's exact, the others' as they last published them. */
  queueView(now: number): Promise<QueueState[]>;
  readonly analyticsCache: ReadCache;
  readonly clock?: () => number;
}

const HOUR_MS = 3_600_000;

export async function serveOverview(deps: OverviewDeps, _request: HttpRequest, response: ResponseSink): Promise<void> {
  const view = await deps.analyticsCache.get('overview', async (): Promise<OverviewView> => {
    const now = (deps.clock ?? Date.now)();
    const since = Math.floor(now / HOUR_MS) * HOUR_MS - 23 * HOUR_MS;
    const [totals, hours, snapshot, queues] = await Promise.all([
      deps.rollups.totals(),
      deps.rollups.fleetHours({ startMs: since, endMs: now }),
      deps.registry.snapshot(),
      deps.queueView(now),
    ]);
    return overviewView({ totals, hours, since, snapshot, queues, now });
  });
  await sendJson(response, view);
}
