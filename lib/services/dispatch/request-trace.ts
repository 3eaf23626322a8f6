/**
 * The trace of one client request (issue: traces and usage): a recorder bound to what is known when the
 * request arrives (id, style, model, tags, client), filled in with where it went and how it ended. Every
 * routed kind of work writes its traces through here, chat as well as embeddings, rerank and media, so a
 * request counts once and each failed attempt that was retried elsewhere leaves its own `retried` trace.
 */

import type { RequestStyle, Trace, TraceStatus } from '../../core/analytics/trace-record';
import type { RouterError } from '../../core/errors';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import { breakdownPoints } from '../../core/scoring/score';
import type { TraceRecorder } from '../analytics/trace';
import type { HttpRequest } from '../http/request';
import type { RequestSpan } from '../telemetry/span-export';
import type { AttemptFailure } from './dispatch-failures';
import type { RoutingDecision } from './dispatcher';

export type TraceFields = Partial<Trace> & { readonly status: TraceStatus };

/** Trace fields being filled in, one by one: how the request path builds them (lib/core/merged.ts). */
export type TraceFieldsBuilder = { -readonly [K in keyof Trace]?: Trace[K] } & { status: TraceStatus };

/**
 * Records one trace of this request with `fields`, then `more`, over the request's own; its latency
 * runs from the request's arrival to `endedAt` (epoch ms), now when absent. Two sources rather than one
 * merged by the caller: the record is the one object built, with no spread between (lib/core/merged.ts).
 */
export type TraceFn = (fields: TraceFields, endedAt?: number, more?: Partial<Trace>) => void;

/** The client request a trace is about: what is known when it arrives. */
export interface TracedRequest {
  readonly request: HttpRequest;
  readonly style: RequestStyle;
  /** The model as the client named it, when the route resolved it to another (the routing model otherwise). */
  readonly requestedModel?: string | undefined;
  /** The model the request is routed by: the trace's requested model when `requestedModel` is absent. */
  readonly routing?: Pick<RoutingRequest, 'model' | 'claim'> | undefined;
  readonly tags: readonly string[];
  /**
   * How long the route waited for the table's fleet read before it dispatched (a cold start's first read,
   * a thawed process's one read: lib/services/registry/timed-snapshot); absent when it did not wait.
   */
  readonly tableWaitMs?: number | undefined;
}

/**
 * The request's trace recorder, written to `traces`; `startedAt` (epoch ms) is now when absent. Where
 * spans are exported, every trace it records ends in `span` (a retried attempt's as its child): the
 * request's, opened now unless the caller opened it first to pass its `traceparent` on to the node.
 */
export function createRequestTrace(
  traces: TraceRecorder,
  input: TracedRequest,
  startedAt = Date.now(),
  span: RequestSpan | undefined = openRequestSpan(traces, input.request),
): TraceFn {
  const requestedModel = input.requestedModel ?? input.routing?.model ?? '';
  const { request, style, tags } = input;
  const claim = input.routing?.claim;
  return (fields, endedAt = Date.now(), more) => {
    // A literal of plain properties, then the fields copied on: every trace shares one hidden class.
    const record = {
      requestId: request.requestId,
      startedAt,
      style,
      requestedModel,
      latencyMs: endedAt - startedAt,
      retries: 0,
      tags,
      clientIp: request.sourceIp,
      priority: claim?.priority,
      app: claim?.app,
      key: request.caller.keyId,
    };
    const trace = Object.assign(record, fields, more) as Trace;
    if (span === undefined) traces.record(trace);
    else traces.record(trace, span);
  };
}

/** The span of `request`, arriving now, when `traces` exports spans; under the client's `traceparent`. */
export function openRequestSpan(traces: TraceRecorder, request: HttpRequest): RequestSpan | undefined {
  return traces.openSpan?.(request.header('traceparent'));
}

/** A failure as the trace keeps it: the client's words, then the technical cause the client was not shown. */
export function traceError(error: RouterError): string {
  return error.detail === undefined ? error.message : `${error.message} (${error.detail})`;
}

/**
 * What the trace says about the routing (node, served model, score and its points per signal, retries,
 * fallback) under `status`, set field by field for the caller to add to.
 */
export function routedTraceFields(decision: RoutingDecision, status: TraceStatus): TraceFieldsBuilder {
  const fields: TraceFieldsBuilder = {
    status,
    nodeId: decision.nodeId,
    servedModel: decision.servedModel,
    score: decision.score,
    scoreBreakdown: breakdownPoints(decision.breakdown),
    retries: decision.retries,
  };
  if (decision.fallbackModel !== undefined) fields.fallbackModel = decision.fallbackModel;
  if (decision.skipped !== undefined) fields.skipped = decision.skipped;
  if (decision.tableWaitMs !== undefined) fields.tableWaitMs = decision.tableWaitMs;
  if (decision.queueWaitMs !== undefined) fields.queueWaitMs = decision.queueWaitMs;
  return fields;
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
