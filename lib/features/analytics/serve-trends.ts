/**
 * `GET /dashboard/api/trends?hours=24` (issue 22 item 2): the fleet per UTC hour of the window (`hours`,
 * or `start_ts`/`end_ts`), every hour listed, from the hourly fleet rollups only.
 */
import { PERCENTILE_ERROR_PCT } from '../../core/analytics/rollup-figures';
import { type TrendsView, trendHours } from '../../core/analytics/trends';
import { utcHoursIn, windowParam } from '../../core/analytics/window';
import type { ReadCache } from '../../services/analytics/read-cache';
import type { RollupReader } from '../../services/analytics/rollup-reader';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import { readKey } from './read-key';

export interface TrendsDeps {
  readonly rollups: Pick<RollupReader, 'fleetHours'>;
  readonly analyticsCache: ReadCache;
  readonly clock?: () => number;
}

export async function serveTrends(deps: TrendsDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const { window, count } = windowParam(request.query, (deps.clock ?? Date.now)(), 'hours', 24);
  const view = await deps.analyticsCache.get(
    readKey('trends', request.query),
    async (): Promise<TrendsView> => ({
      hours: count,
      start_ts: window.startMs / 1000,
      end_ts: window.endMs / 1000,
      percentile_error_pct: PERCENTILE_ERROR_PCT,
      data: trendHours(utcHoursIn(window), await deps.rollups.fleetHours(window)),
    }),
  );
  await sendJson(response, view);
}
