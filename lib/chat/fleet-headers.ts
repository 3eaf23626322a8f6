/**
 * The `X-Fleet-*` headers of a routed reply (spec §4.1, §4.2), all known before the first byte:
 * node, score, affinity (only where it applied), fallback (only when one served), retries (only when
 * there were some), and the context-overflow warning when the prompt exceeds the loaded context. The
 * messages and responses styles add how the client's model id was resolved (anchor §2.8) and what the
 * context layers changed (anchor §3.8).
 */
import type { RoutingDecision } from '../routing/dispatcher';
import type { ModelResolution } from '../routing/resolve-model';

export function fleetHeaders(decision: RoutingDecision, contextOverflow?: string): Record<string, string> {
  const headers: Record<string, string> = {
    'x-fleet-node': decision.nodeId,
    'x-fleet-score': String(Math.round(decision.score * 10) / 10),
    'x-fleet-model': decision.servedModel,
  };
  if (decision.affinity !== undefined) headers['x-fleet-affinity'] = decision.affinity;
  if (decision.fallbackModel !== undefined) headers['x-fleet-fallback'] = decision.fallbackModel;
  if (decision.retries > 0) headers['x-fleet-retries'] = String(decision.retries);
  if (contextOverflow !== undefined) headers['x-fleet-context-overflow'] = contextOverflow;
  return headers;
}

/**
 * The client's model id and how it became the routed model (`map`, `fleet`, `auto`, `default`); the model
 * that served is `x-fleet-model`. The id is the client's text: anything but printable ASCII is
 * percent-encoded, since a header value cannot carry it.
 */
export function modelResolutionHeaders(requested: string, resolution: ModelResolution): Record<string, string> {
  return {
    'x-fleet-requested-model': /^[\x20-\x7e]*$/.test(requested) ? requested : encodeURIComponent(requested),
    'x-fleet-model-resolution': resolution.via,
  };
}

/**
 * What the context layers changed in the prompt the node gets, only when they changed something:
 * `x-fleet-context-cleared` — tool results Layer 1 cleared (those cleared on earlier turns included);
 * `x-fleet-context-summarised` — tool results Layer 2 replaced by a summary.
 */
export function contextLayerHeaders(layers: {
  readonly cleared: number;
  readonly summarised: number;
}): Record<string, string> {
  const headers: Record<string, string> = {};
  if (layers.cleared > 0) headers['x-fleet-context-cleared'] = String(layers.cleared);
  if (layers.summarised > 0) headers['x-fleet-context-summarised'] = String(layers.summarised);
  return headers;
}
