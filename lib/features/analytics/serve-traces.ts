/**
 * `GET /dashboard/api/traces` (issue 22 item 2): the most recent traces, newest first, every field the
 * router records (lib/core/analytics/trace-view). `limit` 20 by default, at most `MAX_TRACE_LIMIT`;
 * optional filters `model` (asked for or served), `node_id`, `status`, `tag`. Benchmark traffic is left
 * out unless `benchmark=true` (everything) or `run_id=<id>` (that run's traces only).
 */

import type { TraceStatus } from '../../core/analytics/trace-record';
import { traceView } from '../../core/analytics/trace-view';
import { integerParam, type Query } from '../../core/analytics/window';
import { BadRequestError } from '../../core/errors';
import type { ReadCache } from '../../services/analytics/read-cache';
import type { TraceQuery, TraceReader } from '../../services/analytics/trace-reader';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import { readKey } from './read-key';

export interface TracesDeps {
  readonly traceReader: TraceReader;
  readonly analyticsCache: ReadCache;
}

export const DEFAULT_TRACE_LIMIT = 20;
export const MAX_TRACE_LIMIT = 500;
const STATUSES: readonly TraceStatus[] = ['completed', 'failed', 'retried', 'client_disconnected', 'incomplete'];

export async function serveTraces(deps: TracesDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const query = traceQuery(request.query);
  const view = await deps.analyticsCache.get(readKey('traces', request.query), async () => {
    const read = await deps.traceReader.recent(query);
    return { limit: query.limit, partial: read.partial, traces: read.traces.map(traceView) };
  });
  await sendJson(response, view);
}

/** The query's parameters checked; a bad one is a 400 naming it. */
export function traceQuery(query: Query): TraceQuery {
  const text = (name: string): string | undefined => {
    const value = query[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const status = text('status');
  if (status !== undefined && !STATUSES.includes(status as TraceStatus)) {
    throw new BadRequestError(`status must be one of ${STATUSES.join(', ')}, got "${status}"`, 'status');
  }
  const benchmark = text('benchmark');
  if (benchmark !== undefined && benchmark !== 'true' && benchmark !== 'false') {
    throw new BadRequestError(`benchmark must be true or false, got "${benchmark}"`, 'benchmark');
  }
  const runId = text('run_id');
  const model = text('model');
  const nodeId = text('node_id');
  const tag = text('tag');
  return {
    limit: integerParam(query, 'limit', DEFAULT_TRACE_LIMIT, 1, MAX_TRACE_LIMIT),
    ...(model === undefined ? {} : { model }),
    ...(nodeId === undefined ? {} : { nodeId }),
    ...(status === undefined ? {} : { status: status as TraceStatus }),
    ...(tag === undefined ? {} : { tag }),
    benchmark: runId !== undefined ? { runId } : benchmark === 'true' ? 'include' : 'exclude',
  };
}
