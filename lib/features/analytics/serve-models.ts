/**
 * `GET /dashboard/api/models?days=7` (issue 22 item 2): per model, daily rows and a summary with
 * percentiles over the window (`days`, or `start_ts`/`end_ts`; whole UTC days), from the day rollups only.
 */
import { type ModelsView, modelsView } from '../../core/analytics/models';
import { PERCENTILE_ERROR_PCT } from '../../core/analytics/rollup-figures';
import { windowParam } from '../../core/analytics/window';
import type { ReadCache } from '../../services/analytics/read-cache';
import type { RollupReader } from '../../services/analytics/rollup-reader';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import { readKey } from './read-key';

export interface ModelsDeps {
  readonly rollups: Pick<RollupReader, 'nodeModelDays'>;
  readonly analyticsCache: ReadCache;
  readonly clock?: () => number;
}

export async function serveModels(deps: ModelsDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const { window, count } = windowParam(request.query, (deps.clock ?? Date.now)(), 'days', 7);
  const view = await deps.analyticsCache.get(
    readKey('models', request.query),
    async (): Promise<ModelsView> => ({
      days: count,
      start_ts: window.startMs / 1000,
      end_ts: window.endMs / 1000,
      percentile_error_pct: PERCENTILE_ERROR_PCT,
      ...modelsView(await deps.rollups.nodeModelDays(window)),
    }),
  );
  await sendJson(response, view);
}
