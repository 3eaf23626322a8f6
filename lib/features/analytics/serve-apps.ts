/**
 * `GET /dashboard/api/apps` and `GET /dashboard/api/apps/daily` (issue 22 item 2; the reference's
 * `/dashboard/api/tags` and `/tags/daily` are the same routes): per-tag analytics over `days` (7) or
 * `start_ts`/`end_ts`, read from the day × tag rollups only — one Query per UTC day the window overlaps,
 * read whole — and shaped by lib/core/analytics/apps.
 */
import { tagDaily, tagSummary, tagUsage } from '../../core/analytics/apps';
import { PERCENTILE_ERROR_PCT } from '../../core/analytics/rollup-figures';
import { windowParam } from '../../core/analytics/window';
import type { RollupReader } from '../../services/analytics/rollup-reader';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';

/** What the per-tag reads use: the rollups, and a clock (the real one unless a test gives its own). */
export interface AppsDeps {
  readonly rollups: Pick<RollupReader, 'tagDays'>;
  readonly now?: () => number;
}

/** How far a percentile read may be from the sample it stands for, in % (lib/core/analytics/histogram). */

async function readTagDays(deps: AppsDeps, request: HttpRequest) {
  const { window, count } = windowParam(request.query, (deps.now ?? Date.now)(), 'days', 7);
  return { days: count, rows: await deps.rollups.tagDays(window) };
}

export async function serveApps(deps: AppsDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const { days, rows } = await readTagDays(deps, request);
  const data = tagUsage(rows);
  await sendJson(response, { days, percentile_error_pct: PERCENTILE_ERROR_PCT, data, summary: tagSummary(data) });
}

export async function serveAppsDaily(deps: AppsDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const { days, rows } = await readTagDays(deps, request);
  await sendJson(response, { days, percentile_error_pct: PERCENTILE_ERROR_PCT, data: tagDaily(rows) });
}
