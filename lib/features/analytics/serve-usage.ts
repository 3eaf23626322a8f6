/**
 * `GET /dashboard/api/usage?days=7` (issue 22 item 2): per UTC day × node × model of the window
 * (`days`, or `start_ts`/`end_ts`; the days it overlaps, whole), and per node and fleet-wide over it
 * (rates and prompt-cache share, issue 41 item 5), from the day rollups only.
 */
import { type UsageView, usageRows, usageTotals } from '../../core/analytics/usage';
import { windowParam } from '../../core/analytics/window';
import type { ReadCache } from '../../services/analytics/read-cache';
import type { RollupReader } from '../../services/analytics/rollup-reader';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import { readKey } from './read-key';

export interface UsageDeps {
  readonly rollups: Pick<RollupReader, 'nodeModelDays'>;
  readonly analyticsCache: ReadCache;
  readonly clock?: () => number;
}

export async function serveUsage(deps: UsageDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const { window, count } = windowParam(request.query, (deps.clock ?? Date.now)(), 'days', 7);
  const view = await deps.analyticsCache.get(readKey('usage', request.query), async (): Promise<UsageView> => {
    const rows = await deps.rollups.nodeModelDays(window);
    return {
      days: count,
      start_ts: window.startMs / 1000,
      end_ts: window.endMs / 1000,
      data: usageRows(rows),
      ...usageTotals(rows),
    };
  });
  await sendJson(response, view);
}
