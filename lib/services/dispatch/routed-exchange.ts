/**
 * One routed request/reply exchange (issue: media item 6): dispatch to the best node for the work
 * (ranking, queues, retries and fallbacks as for chat), read the node's whole reply while the queue slot
 * is held, let the caller interpret it — parse, check, poll a job — and write the trace whatever
 * happened. Embeddings, rerank, image generation and speech-to-text are this shape; chat streams and has
 * its own relay (lib/features/chat/serve-chat). The `X-Fleet-*` headers come back with the value so the route
 * can answer in its own format.
 */

import { RouterError, toRouterError, withHeaders } from '../../core/errors';
import { nodeBrokeOff } from '../../core/fleet/node-failure';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import { nodeErrorText } from '../../core/wire/node-error-text';
import type { RequestStyle } from '../analytics/trace';
import type { HttpRequest } from '../http/request';
import type { ResponseSink } from '../http/response-sink';
import { readNodeBody } from '../node-client/node-stream';
import { dispatchTraced } from './dispatch-request';
import type { RoutingDecision } from './dispatcher';
import { fleetHeaders } from './fleet-headers';
import { createRequestTrace, routedTraceFields, traceError } from './request-trace';
import type { NodeAttempt, NodeTransport } from './transport';

export interface RoutedCallInput {
  readonly request: HttpRequest;
  /** Its `signal` aborts the dispatch and the node request when the client goes away. */
  readonly response: ResponseSink;
  readonly style: RequestStyle;
  readonly routing: RoutingRequest;
  /** The model as the client named it, when the route resolved it to `routing.model`. */
  readonly requestedModel?: string;
  readonly tags: readonly string[];
  /** Sends one attempt to the node or its sidecar; resolves when the reply's headers arrive. */
  readonly send: NodeTransport;
  /** The largest reply read whole (default 64 MB); a bigger one fails the request with 502. */
  readonly maxReplyBytes?: number;
}

/** The node's whole reply, with where it came from. */
export interface NodeAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly attempt: NodeAttempt;
  readonly decision: RoutingDecision;
  /** Aborted when the client goes away: a caller that polls or calls again must stop. */
  readonly signal: AbortSignal;
}

/** What the caller made of the reply, and what the trace and usage counters should say about it. */
export interface RoutedValue<T> {
  readonly value: T;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
}

export interface RoutedResult<T> {
  readonly value: T;
  readonly decision: RoutingDecision;
  /** `X-Fleet-Node`, `X-Fleet-Score`, `X-Fleet-Model` and, when they apply, fallback and retries. */
  readonly headers: Readonly<Record<string, string>>;
  /** Wall time from the request's arrival to the interpreted reply, ms. */
  readonly elapsedMs: number;
}

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
 * Dispatches, reads and interprets. `interpret` runs with the queue slot held (a job the node works on
 * counts against its queue until it is done) and sees every reply the dispatcher served, 2xx and 4xx
 * alike; what it throws is the request's error and is traced as its failure.
 */
export async function routedCall<T>(
  input: RoutedCallInput,
  interpret: (answer: NodeAnswer) => Promise<RoutedValue<T>> | RoutedValue<T>,
): Promise<RoutedResult<T>> {
  const { request, response, routing } = input;
  const startedAt = Date.now();
  const trace = createRequestTrace({
    request,
    style: input.style,
    requestedModel: input.requestedModel ?? routing.model,
    tags: input.tags,
    startedAt,
  });
  const signal = response.signal;
  const { reply, attempt, decision, slot } = await dispatchTraced(
    routing,
    input.send,
    signal,
    trace,
    request.requestId,
  );
  const stop = () => reply.cancel();
  signal.addEventListener('abort', stop, { once: true });
  try {
    const body = await readNodeBody(reply, input.maxReplyBytes ?? 64 * 1024 * 1024).catch((error: unknown) => {
      // A reply cut off mid-body (connection reset, node crash) is the node's failure: 502, not ours.
      if (error instanceof RouterError || signal.aborted) throw error;
      throw nodeBrokeOff(attempt.node.id, error);
    });
    const interpreted = await interpret({
      status: reply.status,
      headers: reply.headers,
      body,
      attempt,
      decision,
      signal,
    });
    slot.release('completed');
    // Starts with a plain property, never a spread (lib/core/merged.ts): traces share hidden classes.
    trace({
      status: 'completed',
      ...routedTraceFields(decision),
      ...(interpreted.promptTokens !== undefined ? { promptTokens: interpreted.promptTokens } : {}),
      ...(interpreted.completionTokens !== undefined ? { completionTokens: interpreted.completionTokens } : {}),
    });
    return { value: interpreted.value, decision, headers: fleetHeaders(decision), elapsedMs: Date.now() - startedAt };
  } catch (error) {
    // The node was chosen: its X-Fleet-* headers go out with the error (a 502 names the node that failed).
    const routerError = withHeaders(toRouterError(error), fleetHeaders(decision));
    slot.release(signal.aborted ? 'cancelled' : 'failed');
    trace({
      status: signal.aborted ? 'client_disconnected' : 'failed',
      ...routedTraceFields(decision),
      error: traceError(routerError),
    });
    throw routerError;
  } finally {
    signal.removeEventListener('abort', stop);
    reply.cancel();
  }
}
