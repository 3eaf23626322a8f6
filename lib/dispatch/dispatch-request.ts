/**
 * Dispatches one request on this instance's routing state (queues, latency, affinity, the fleet's
 * published depths) with the transport the kind of work needs: the one entry every routed route —
 * chat, embeddings, rerank, images, speech-to-text — goes through, so scoring, queues, retries and
 * fallbacks are the same everywhere.
 */
import { createDispatcher, type DispatchResult } from '../routing/dispatcher';
import type { RoutingRequest } from '../routing/routing-request';
import type { NodeTransport } from '../routing/transport';
import { getServices } from '../services';

export function dispatchRequest(
  routing: RoutingRequest,
  send: NodeTransport,
  signal: AbortSignal,
): Promise<DispatchResult> {
  const services = getServices();
  const dispatch = createDispatcher({
    snapshot: () => services.registry.snapshot(),
    ...services.routing,
    maxRetries: services.config.maxRetries,
    concurrencyOverrides: services.config.nodeConcurrency,
    send,
  });
  return dispatch(routing, signal);
}
