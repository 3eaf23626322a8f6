/**
 * Dispatches one request on this instance's routing state (queues, latency, affinity, the fleet's
 * published depths) with the transport the kind of work needs: the one entry every routed route —
 * chat, embeddings, rerank, images, speech-to-text — goes through, so scoring, queues, retries and
 * fallbacks are the same everywhere.
 */
import { toRouterError } from '../../core/errors';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import type { AbortSource } from '../../core/stream/abort-source';
import { getServices } from '../../instance';
import { createDispatcher, type DispatchResult, type DispatchTrail } from './dispatcher';
import { routedTraceFields, type TraceFn, traceError, traceFailedAttempts } from './request-trace';
import type { NodeTransport } from './transport';

export function dispatchRequest(
  routing: RoutingRequest,
  send: NodeTransport,
  signal: AbortSource,
  trail?: DispatchTrail,
): Promise<DispatchResult> {
  const services = getServices();
  const dispatch = createDispatcher({
    // The snapshot at hand when the process is warm: no promise on the routing path.
    snapshot: () => services.registry.ready() ?? services.registry.snapshot(),
    ...services.routing,
    maxRetries: services.config.maxRetries,
    concurrencyOverrides: services.config.nodeConcurrency,
    send,
  });
  return dispatch(routing, signal, trail);
}

/**
 * `dispatchRequest` with its traces: each attempt that reached for a node and failed leaves a `retried`
 * trace with its node, error and when it failed. A dispatch that fails also leaves the request's own
 * trace (`failed`, or `client_disconnected` when the client left) naming where it ended — the last node
 * it was queued on or sent to, with that node's score — and rethrows a `RouterError`.
 */
export async function dispatchTraced(
  routing: RoutingRequest,
  send: NodeTransport,
  signal: AbortSource,
  trace: TraceFn,
  requestId: string,
): Promise<DispatchResult> {
  const trail: DispatchTrail = { failedAttempts: [] };
  let result: DispatchResult;
  try {
    result = await dispatchRequest(routing, send, signal, trail);
  } catch (error) {
    const routerError = toRouterError(error);
    const last = trail.decision;
    // The last node's own failure, when it failed, is the request's trace below, not a retried one.
    const retried = last === undefined ? trail.failedAttempts : trail.failedAttempts.slice(0, last.retries);
    traceFailedAttempts(trace, requestId, retried);
    trace({
      status: signal.aborted ? 'client_disconnected' : 'failed',
      ...(last !== undefined ? routedTraceFields(last) : {}),
      error: traceError(routerError),
    });
    throw routerError;
  }
  traceFailedAttempts(trace, requestId, result.failedAttempts);
  return result;
}
