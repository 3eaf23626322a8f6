/**
 * The `X-Fleet-*` headers only the messages and responses styles add (the routing decision's are
 * `lib/services/dispatch/fleet-headers`): how the client's model id was resolved (anchor §2.8) and what the
 * context layers changed (anchor §3.8).
 */

import type { ModelResolution } from '../../core/scoring/resolve-model';
import { headerValue } from '../../services/http/header-value';

/**
 * The client's model id and how it became the routed model (`map`, `fleet`, `auto`, `default`); the model
 * that served is `x-fleet-model`. The id is the client's text: `headerValue` makes it one a header
 * can carry.
 */
export function modelResolutionHeaders(requested: string, resolution: ModelResolution): Record<string, string> {
  return {
    'x-fleet-requested-model': headerValue(requested),
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
