/**
 * One routed exchange with a node (issue 21 item 2): reach a node that answers and hold it — by default
 * through the instance's dispatcher (rank, queue, retry, fall back: ./dispatcher), holding the served
 * attempt's queue slot; for work that names its node itself, that node and what the work holds on it
 * (./named-node-reach: a model pull and its lock) — while the caller relays the node's reply as a stream
 * (lib/services/http/relay-stream) or reads it whole (`exchangeWhole`), give the hold back by how it
 * ended, and write the request's trace once — `completed`, `failed`, `client_disconnected` or
 * `incomplete`, with a `retried` trace before it for every attempt that failed on its node. Chat,
 * embeddings, rerank, images, speech-to-text, model pulls and the context summariser all go through
 * here; the summariser's own calls leave no trace (it is not a client request).
 *
 * Words: to *dispatch* is to get a request to a node that answers (the dispatcher's job, up to the
 * reply's headers); to *reach* is that first step, whoever takes it (./reach); the *exchange* is the
 * whole of it — the reach, the reply, the hold, the trace; to *relay* is to stream a converted reply
 * into the client's sink.
 */

import type { Trace } from '../../core/analytics/trace-record';
import { RouterError, toRouterError, withHeaders } from '../../core/errors';
import { BROKE_OFF_CODE, nodeBrokeOff } from '../../core/fleet/node-failure';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import { watchAbort } from '../../core/stream/abort-source';
import { nodeErrorText } from '../../core/wire/node-error-text';
import type { TraceRecorder } from '../analytics/trace';
import { readNodeBody } from '../node-client/node-stream';
import type { Dispatcher, DispatchResult, DispatchTrail, RoutingDecision } from './dispatcher';
import { fleetHeaders } from './fleet-headers';
import type { SlotOutcome } from './queue-manager';
import type { ExchangeOutcome, ExchangeRequest, Reach, Reached } from './reach';
import {
  createRequestTrace,
  openRequestSpan,
  routedTraceFields,
  type TraceFieldsBuilder,
  type TraceFn,
  traceError,
  traceFailedAttempts,
} from './request-trace';
import type { NodeAttempt, NodeTransport } from './transport';

/** What an exchange needs that outlives the request: built once per instance (lib/instance.ts). */
export interface ExchangeDeps {
  readonly dispatcher: Dispatcher;
  readonly traces: TraceRecorder;
}

/** A routed exchange's request: what the dispatcher routes by, and how an attempt is sent. */
export interface ExchangeInput extends ExchangeRequest {
  readonly routing: RoutingRequest;
  /** Sends one attempt to the node or its sidecar; resolves when the reply's headers arrive. */
  readonly send: NodeTransport;
}

/** How the caller's part of an exchange ended: the trace's status, what the trace adds, the value. */
export interface ExchangeEnd<T> {
  readonly status: 'completed' | 'failed' | 'incomplete' | 'client_disconnected';
  readonly value: T;
  /** More trace fields, after the reach's ones: tokens, finish reason, TTFT, the error of a failure. */
  readonly fields?: Partial<Trace> | undefined;
  /** A failure the caller wants thrown after the trace (an answer not yet started). */
  readonly rethrow?: RouterError | undefined;
}

/** The caller's part: relay or read the served reply, with its node held. `startedAt` is the request's arrival. */
export type Settle<T, S extends Reached = DispatchResult> = (served: S, startedAt: number) => Promise<ExchangeEnd<T>>;

const SLOT_OUTCOME = {
  completed: 'completed',
  failed: 'failed',
  incomplete: 'failed',
  client_disconnected: 'cancelled',
} as const satisfies Record<ExchangeEnd<unknown>['status'], SlotOutcome>;

/** What the node held is told of how the exchange ended: a reply the node cut is its own failure. */
function outcomeOf(status: ExchangeEnd<unknown>['status'], errorCode: string | undefined): ExchangeOutcome {
  return status !== 'client_disconnected' && errorCode === BROKE_OFF_CODE ? 'broke-off' : SLOT_OUTCOME[status];
}

/**
 * Reaches a node through `reach`, lets `settle` relay or read the reply with the node held, and traces
 * once. What `settle` throws is the request's error, traced as failed (or client_disconnected) and
 * rethrown with the reach's headers (a routed request's: the chosen node's `X-Fleet-*`).
 */
export async function exchange<D extends Pick<ExchangeDeps, 'traces'>, I extends ExchangeRequest, S extends Reached, T>(
  reach: Reach<D, I, S>,
  deps: D,
  input: I,
  settle: Settle<T, S>,
): Promise<T> {
  const startedAt = Date.now();
  const traced = input.traced;
  // Where spans are exported, the request's span is opened now: the node is sent its `traceparent`.
  const span = traced === undefined ? undefined : openRequestSpan(deps.traces, traced.request);
  const trace = traced === undefined ? undefined : createRequestTrace(deps.traces, traced, startedAt, span);
  const served = await reach.open(deps, input, trace, span?.traceparent);
  let end: ExchangeEnd<T>;
  try {
    end = await settle(served, startedAt);
  } catch (error) {
    // The node was reached: its headers go out with the error (a 502 names the node that failed).
    const failure = withHeaders(toRouterError(error), reach.errorHeaders(served));
    const gone = input.signal.aborted;
    served.reply.cancel();
    const released = reach.release(served, outcomeOf(gone ? 'client_disconnected' : 'failed', failure.code));
    if (released !== undefined) await released;
    if (trace !== undefined) {
      const fields = reach.traceFields(served, gone ? 'client_disconnected' : 'failed');
      fields.error = reach.traceError(failure);
      fields.errorCode = failure.code;
      trace(fields);
    }
    throw failure;
  }
  served.reply.cancel();
  const released = reach.release(served, outcomeOf(end.status, end.fields?.errorCode), end.fields);
  if (released !== undefined) await released;
  // Where it went, then what the caller adds: copied once into the record, no spread (lib/core/merged.ts).
  trace?.(reach.traceFields(served, end.status), undefined, end.fields);
  if (end.rethrow !== undefined) throw end.rethrow;
  return end.value;
}

/**
 * The dispatcher's reach, every routed kind of work's: the served attempt's queue slot is the hold, the
 * routing decision names the node in the trace and the `X-Fleet-*` headers.
 */
const dispatched: Reach<ExchangeDeps, ExchangeInput, DispatchResult> = {
  open: (deps, input, trace, traceparent) => dispatchTraced(deps.dispatcher, input, trace, traceparent),
  release: (served, outcome, observation) => {
    served.slot.release(outcome, observation);
    return undefined;
  },
  traceFields: (served, status) => routedTraceFields(served.decision, status),
  errorHeaders: (served) => fleetHeaders(served.decision),
  traceError,
};

/** The exchange of a routed request: dispatched on the instance's dispatcher, its queue slot held. */
export function routedExchange<T>(deps: ExchangeDeps, input: ExchangeInput, settle: Settle<T>): Promise<T> {
  return exchange(dispatched, deps, input, settle);
}

/**
 * Dispatches on the instance's dispatcher, with the traces of a dispatch: each attempt that reached for
 * a node and failed leaves a `retried` trace with its node, error and when it failed. A dispatch that
 * fails also leaves the request's own trace (`failed`, or `client_disconnected` when the client left)
 * naming where it ended — the last node it was queued on or sent to, with that node's score — and
 * rethrows a `RouterError`.
 */
async function dispatchTraced(
  dispatcher: Dispatcher,
  input: ExchangeInput,
  trace: TraceFn | undefined,
  traceparent: string | undefined,
): Promise<DispatchResult> {
  const send: NodeTransport =
    traceparent === undefined ? input.send : (attempt, signal) => input.send(attempt, signal, traceparent);
  if (trace === undefined) return dispatcher(input.routing, send, input.signal);
  const requestId = input.traced?.request.requestId ?? '';
  const trail: DispatchTrail = { failedAttempts: [] };
  // What the route waited for the table before the dispatch counts with what the dispatch waits.
  if (input.traced?.tableWaitMs !== undefined) trail.tableWaitMs = input.traced.tableWaitMs;
  let result: DispatchResult;
  try {
    result = await dispatcher(input.routing, send, input.signal, trail);
  } catch (error) {
    const routerError = toRouterError(error);
    const last = trail.decision;
    // The last node's own failure, when it failed, is the request's trace below, not a retried one.
    const retried = last === undefined ? trail.failedAttempts : trail.failedAttempts.slice(0, last.retries);
    traceFailedAttempts(trace, requestId, retried);
    const status = input.signal.aborted ? 'client_disconnected' : 'failed';
    const fields: TraceFieldsBuilder = last !== undefined ? routedTraceFields(last, status) : { status };
    if (last === undefined && trail.tableWaitMs !== undefined) fields.tableWaitMs = trail.tableWaitMs;
    fields.error = traceError(routerError);
    fields.errorCode = routerError.code;
    trace(fields);
    throw routerError;
  }
  traceFailedAttempts(trace, requestId, result.failedAttempts);
  return result;
}

/** The node's whole reply, with where it came from. */
export interface NodeAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly attempt: NodeAttempt;
  readonly decision: RoutingDecision;
}

/** What the caller made of a whole reply, and what the trace and usage counters should say about it. */
export interface RoutedValue<T> {
  readonly value: T;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  /** How long the node spent loading the model, ms, where its reply says (the trace's `loadMs`). */
  readonly loadMs?: number;
}

export interface RoutedResult<T> {
  readonly value: T;
  readonly decision: RoutingDecision;
  /** `X-Fleet-Node`, `X-Fleet-Score`, `X-Fleet-Model` and, when they apply, fallback and retries. */
  readonly headers: Readonly<Record<string, string>>;
  /** Wall time from the request's arrival to the interpreted reply, ms. */
  readonly elapsedMs: number;
}

/** The largest reply read whole unless the caller says otherwise. */
const MAX_WHOLE_REPLY_BYTES = 64 * 1024 * 1024;

/**
 * Turns a node's 4xx into the client's error: the node's own words (Ollama's `{"error"}`, a sidecar's
 * FastAPI `{"detail"}`, the OpenAI envelope: `nodeErrorText`) with the node's status. 5xx never gets
 * here: the dispatcher retries those elsewhere and answers 502/503 when none is left.
 */
export function nodeRefusal(answer: Pick<NodeAnswer, 'status' | 'body'>): RouterError {
  const message = nodeErrorText(answer.body) ?? `the node answered ${answer.status}`;
  return new RouterError(answer.status, message, { code: 'node_refused', retryable: false });
}

/**
 * An exchange whose reply is read whole and interpreted: embeddings, rerank, images, speech-to-text,
 * the summariser. `interpret` runs with the queue slot held (a job the node works on counts against its
 * queue until it is done) and sees every reply the dispatcher served, 2xx and 4xx alike; what it throws
 * is the request's error. The node request is cancelled at once when the client leaves.
 */
export async function exchangeWhole<T>(
  deps: ExchangeDeps,
  input: ExchangeInput,
  interpret: (answer: NodeAnswer) => Promise<RoutedValue<T>> | RoutedValue<T>,
  maxReplyBytes = MAX_WHOLE_REPLY_BYTES,
): Promise<RoutedResult<T>> {
  const { signal } = input;
  return routedExchange(deps, input, async ({ reply, attempt, decision }, startedAt) => {
    const unwatch = watchAbort(signal, () => reply.cancel());
    try {
      const body = await readNodeBody(reply, maxReplyBytes).catch((error: unknown) => {
        // A reply cut off mid-body (connection reset, node crash) is the node's failure: 502, not ours.
        if (error instanceof RouterError || signal.aborted) throw error;
        throw nodeBrokeOff(attempt.node.id, error);
      });
      const answer = { status: reply.status, headers: reply.headers, body, attempt, decision };
      const interpreted = await interpret(answer);
      const result: RoutedResult<T> = {
        value: interpreted.value,
        decision,
        headers: fleetHeaders(decision),
        elapsedMs: Date.now() - startedAt,
      };
      const fields: { -readonly [K in keyof Trace]?: Trace[K] } = {};
      if (interpreted.promptTokens !== undefined) fields.promptTokens = interpreted.promptTokens;
      if (interpreted.completionTokens !== undefined) fields.completionTokens = interpreted.completionTokens;
      if (interpreted.loadMs !== undefined) fields.loadMs = interpreted.loadMs;
      return { status: 'completed', value: result, fields };
    } finally {
      unwatch();
    }
  });
}
