/**
 * `GET /dashboard/api/apps` and `GET /dashboard/api/apps/daily` (issue 22 item 2; the reference's
 * `/dashboard/api/tags` and `/tags/daily` are the same routes): per-tag analytics over `days` (7) or
 * `start_ts`/`end_ts`, read from the day × tag rollups only — one Query per UTC day the window overlaps,
 * read whole — and shaped by lib/core/analytics/apps. With `by=application` (issue 43), the same figures per
 * application as fair sharing counts them (`key:…`, `tag:…`, `client:…`: a request counts once), from the
 * day × application rollups, each row's `tag` named `application`.
 */
import { type TagSummary, tagDaily, tagSummary, tagUsage } from '../../core/analytics/apps';
import { PERCENTILE_ERROR_PCT } from '../../core/analytics/rollup-figures';
import { windowParam } from '../../core/analytics/window';
import { BadRequestError } from '../../core/errors';
import type { RollupReader, RollupRow } from '../../services/analytics/rollup-reader';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';

/** What the per-tag reads use: the rollups, and a clock (the real one unless a test gives its own). */
export interface AppsDeps {
  readonly rollups: Pick<RollupReader, 'tagDays' | 'appDays'>;
  readonly now?: () => number;
}

type Grouping = 'tag' | 'application';

function groupingOf(request: HttpRequest): Grouping {
  const by = request.query['by'];
  if (by === undefined || by === 'tag') return 'tag';
  if (by === 'application') return 'application';
  throw new BadRequestError(`by must be tag or application, got ${JSON.stringify(by)}`, 'by');
}

async function readDays(deps: AppsDeps, request: HttpRequest, by: Grouping) {
  const { window, count } = windowParam(request.query, (deps.now ?? Date.now)(), 'days', 7);
  if (by === 'tag') return { days: count, rows: await deps.rollups.tagDays(window) };
  const rows: RollupRow[] = (await deps.rollups.appDays(window)).flatMap((row) =>
    row.app === undefined ? [] : [{ ...row, tag: row.app }],
  );
  return { days: count, rows };
}

/** A row's `tag` as `application` when the figures are per application. */
function named<T extends { readonly tag: string }>(row: T, by: Grouping): object {
  if (by === 'tag') return row;
  const { tag, ...rest } = row;
  return { application: tag, ...rest };
}

function summaryOf(summary: TagSummary, by: Grouping): object {
  if (by === 'tag') return summary;
  const { tag_count, top_tag, ...rest } = summary;
  return { application_count: tag_count, top_application: top_tag, ...rest };
}

export async function serveApps(deps: AppsDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const by = groupingOf(request);
  const { days, rows } = await readDays(deps, request, by);
  const data = tagUsage(rows);
  await sendJson(response, {
    days,
    percentile_error_pct: PERCENTILE_ERROR_PCT,
    data: data.map((row) => named(row, by)),
    summary: summaryOf(tagSummary(data), by),
  });
}

export async function serveAppsDaily(deps: AppsDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const by = groupingOf(request);
  const { days, rows } = await readDays(deps, request, by);
  await sendJson(response, {
    days,
    percentile_error_pct: PERCENTILE_ERROR_PCT,
    data: tagDaily(rows).map((row) => named(row, by)),
  });
}
