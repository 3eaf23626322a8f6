/**
 * The operator's one line about a request that did not succeed (issue 19 item 8): thrown errors, errors
 * written in band after the first byte, clients that left mid-reply, node refusals — each request once,
 * with its path, status, node, model, request id and the technical cause the client was not shown.
 * Levels: `error` (with the stack) only for the router's own 500; `warn` for a failure of the fleet or
 * the table (5xx, an in-band error); `info` for the client's side (4xx, a client that left). Warnings and
 * info lines are rate limited per kind (lib/services/platform/logger), so an outage logs a line every 10 s, not one per request.
 */
import type { RouterError } from '../../core/errors';
import { causeText, type LogLevel, logger } from '../platform/logger';
import type { FailedReply } from './response-sink';

export interface RequestEnd {
  readonly path: string;
  readonly requestId: string | undefined;
  /** The error the route threw, rendered to the client (or, after the first byte, only logged). */
  readonly error?: RouterError;
  /** What the route noted about a reply that failed without throwing. */
  readonly failure?: FailedReply;
}

function levelOf(status: number, outcome: string): LogLevel {
  if (outcome === 'client_disconnected' || status === 499) return 'info';
  if (status === 500) return 'error';
  return status >= 500 || outcome === 'incomplete' ? 'warn' : 'info';
}

/** Logs one line when the request failed; nothing when it succeeded. */
export function logRequestEnd(end: RequestEnd): void {
  const { error, failure } = end;
  if (error !== undefined) {
    const level = levelOf(error.status, error.status === 499 ? 'client_disconnected' : 'failed');
    const node = error.headers?.['x-fleet-node'];
    const model = error.headers?.['x-fleet-model'];
    const fields = {
      path: end.path,
      status: error.status,
      code: error.code,
      error: error.message,
      ...(node !== undefined ? { node } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(end.requestId !== undefined && end.requestId !== '' ? { requestId: end.requestId } : {}),
      cause: error.detail ?? causeText(error.cause, level === 'error'),
    };
    const msg = error.status === 499 ? 'client disconnected' : 'request failed';
    if (level === 'error') logger().log(level, msg, fields);
    else logger().limited(`request ${error.status} ${error.code} ${node ?? ''} ${end.path}`, level, msg, fields);
    return;
  }
  if (failure === undefined) return;
  const level = levelOf(failure.status, failure.outcome);
  const msg = failure.outcome === 'client_disconnected' ? 'client disconnected' : `request ${failure.outcome}`;
  logger().limited(`request ${failure.outcome} ${failure.status} ${failure.nodeId ?? ''} ${end.path}`, level, msg, {
    path: end.path,
    status: failure.status,
    outcome: failure.outcome,
    ...(failure.message !== undefined ? { error: failure.message } : {}),
    ...(failure.nodeId !== undefined ? { node: failure.nodeId } : {}),
    ...(failure.model !== undefined ? { model: failure.model } : {}),
    ...(end.requestId !== undefined && end.requestId !== '' ? { requestId: end.requestId } : {}),
    ...(failure.detail !== undefined ? { cause: failure.detail } : {}),
  });
}
