/**
 * The `X-Fleet-*` headers of a routed reply (spec §4.1, §4.2), all known before the first byte, for
 * every kind of routed work: node, score, the model that served, affinity (only where it applied),
 * fallback (only when one served), retries (only when there were some). A chat's context headers are
 * lib/features/chat/attempt-context's. Node ids and model names are node or client text: they go through `headerValue`.
 */
import { headerValue } from '../http/header-value';
import type { RoutingDecision } from './dispatcher';

export function fleetHeaders(decision: RoutingDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'x-fleet-node': headerValue(decision.nodeId),
    'x-fleet-score': String(Math.round(decision.score * 10) / 10),
    'x-fleet-model': headerValue(decision.servedModel),
  };
  if (decision.affinity !== undefined) headers['x-fleet-affinity'] = decision.affinity;
  if (decision.fallbackModel !== undefined) headers['x-fleet-fallback'] = headerValue(decision.fallbackModel);
  if (decision.retries > 0) headers['x-fleet-retries'] = String(decision.retries);
  return headers;
}
