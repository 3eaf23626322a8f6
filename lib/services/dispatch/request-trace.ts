/**
 * The trace of one client request (issue: traces and usage): a recorder bound to what is known when the
 * request arrives (id, style, model, tags, client), filled in with where it went and how it ended. Every
 * routed kind of work writes its traces through here, chat as well as embeddings, rerank and media, so a
 * request counts once and each failed attempt that was retried elsewhere leaves its own `retried` trace.
 */

import type { RequestStyle, Trace, TraceStatus } from '../../core/analytics/trace-record';
import type { RouterError } from '../../core/errors';
import { breakdownPoints } from '../../core/scoring/score';
import type { TraceRecorder } from '../analytics/trace';
import type { HttpRequest } from '../http/request';
import type { AttemptFailure } from './dispatch-failures';
import type { RoutingDecision } from './dispatcher';

export type TraceFields = Partial<Trace> & { readonly status: TraceStatus };

/**
 * Records one trace of this request with `fields` over the request's own; its latency runs from the
 * request's arrival to `endedAt` (epoch ms), now when absent.
 */
export type TraceFn = (fields: TraceFields, endedAt?: number) => void;

/** The client request a trace is about: what is known when it arrives. */
export interface TracedRequest {
  readonly request: HttpRequest;
  readonly style: RequestStyle;
  /** The model as the client named it, when the route resolved it to another (the routing model otherwise). */
  readonly requestedModel?: string | undefined;
  /** The model the request is routed by: the trace's requested model when `requestedModel` is absent. */
  readonly routing?: { readonly model: string } | undefined;
  readonly tags: readonly string[];
}

/** The request's trace recorder, written to `traces`; `startedAt` (epoch ms) is now when absent. */
export function createRequestTrace(traces: TraceRecorder, input: TracedRequest, startedAt = Date.now()): TraceFn {
  const requestedModel = input.requestedModel ?? input.routing?.model ?? '';
  return (fields, endedAt = Date.now()) =>
    traces.record({
      requestId: input.request.requestId,
      startedAt,
      style: input.style,
      requestedModel,
      latencyMs: endedAt - startedAt,
      retries: 0,
      tags: input.tags,
      clientIp: input.request.sourceIp,
      ...fields,
    });
}

/** A failure as the trace keeps it: the client's words, then the technical cause the client was not shown. */
export function traceError(error: RouterError): string {
  return error.detail === undefined ? error.message : `${error.message} (${error.detail})`;
}

/** What the trace says about the routing: node, served model, score and its points per signal, retries, fallback. */
export function routedTraceFields(decision: RoutingDecision): Partial<Trace> {
  return {
    nodeId: decision.nodeId,
    servedModel: decision.servedModel,
    score: decision.score,
    scoreBreakdown: breakdownPoints(decision.breakdown),
    retries: decision.retries,
    ...(decision.fallbackModel !== undefined ? { fallbackModel: decision.fallbackModel } : {}),
    ...(decision.skipped !== undefined ? { skipped: decision.skipped } : {}),
  };
}

/**
 * A node that failed before the request moved on leaves its own trace, so the failure is visible per
 * node; its latency runs to the moment it failed.
 */
export function traceFailedAttempts(trace: TraceFn, requestId: string, failures: readonly AttemptFailure[]): void {
  failures.forEach((failure, index) => {
    trace(
      {
        requestId: `${requestId}:attempt-${index + 1}`,
        status: 'retried',
        nodeId: failure.nodeId,
        servedModel: failure.model,
        error: failure.cause === undefined ? failure.detail : `${failure.detail} (${failure.cause})`,
      },
      failure.failedAt,
    );
  });
}
