/**
 * Dispatches one request on this instance's routing state (queues, latency, affinity, the fleet's
 * published depths) with the transport the kind of work needs: the one entry every routed route —
 * chat, embeddings, rerank, images, speech-to-text — goes through, so scoring, queues, retries and
 * fallbacks are the same everywhere.
 */
import { toRouterError } from '../errors';
import { createDispatcher, type DispatchResult } from '../routing/dispatcher';
import type { RoutingRequest } from '../routing/routing-request';
import type { NodeTransport } from '../routing/transport';
import { getServices } from '../services';
import type { AbortSource } from '../stream/abort-source';
import { type TraceFn, traceFailedAttempts } from './request-trace';

export function dispatchRequest(
  routing: RoutingRequest,
  send: NodeTransport,
  signal: AbortSource,
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
  return dispatch(routing, signal);
}

/**
 * `dispatchRequest` with its traces: a dispatch that fails leaves the request's trace (`failed`, or
 * `client_disconnected` when the client left) and rethrows a `RouterError`; one that serves leaves a
 * `retried` trace per attempt that failed before it.
 */
export async function dispatchTraced(
  routing: RoutingRequest,
  send: NodeTransport,
  signal: AbortSource,
  trace: TraceFn,
  requestId: string,
): Promise<DispatchResult> {
  let result: DispatchResult;
  try {
    result = await dispatchRequest(routing, send, signal);
  } catch (error) {
    const routerError = toRouterError(error);
    trace({ status: signal.aborted ? 'client_disconnected' : 'failed', error: routerError.message });
    throw routerError;
  }
  traceFailedAttempts(trace, requestId, result.failedAttempts);
  return result;
}
