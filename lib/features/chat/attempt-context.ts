/**
 * Context protection applied to one attempt of a routed chat or generate request (issue 20 item 10):
 * the plan for the node the dispatcher chose (../context/plan-context), from the routing estimate, the
 * body's own `options` (`num_predict` as it goes to the node, the client's `num_ctx`) and what the node
 * reports about the model (loaded context, own maximum); the body with `options.num_ctx` when the plan
 * asks for one; and the reply headers that say what was done. Pure.
 */
import { type ContextPlan, planContext } from '../../core/context/plan-context';
import type { ModelPlacement } from '../../core/fleet/node';
import { merged } from '../../core/merged';
import { CONTEXT_OVERFLOW_HEADER, contextOverflow } from '../../core/protocols/diagnostic-headers';
import type { RoutingRequest } from '../../core/scoring/routing-request';

export const CONTEXT_HEADER = 'x-fleet-context';

function optionsOf(body: unknown): object | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const options: unknown = Reflect.get(body, 'options');
  return typeof options === 'object' && options !== null ? options : undefined;
}

function integerOption(options: object | undefined, key: string): number | undefined {
  if (options === undefined) return undefined;
  const value: unknown = Reflect.get(options, key);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The plan for this body on this placement; undefined for work that is not a chat with an estimate. */
export function attemptContext(
  routing: RoutingRequest,
  body: unknown,
  placement: ModelPlacement,
): ContextPlan | undefined {
  if (routing.kind !== 'chat' || routing.promptTokens === undefined || placement.backend !== 'ollama') {
    return undefined;
  }
  const options = optionsOf(body);
  return planContext({
    promptTokens: routing.promptTokens,
    numPredict: integerOption(options, 'num_predict'),
    clientNumCtx: integerOption(options, 'num_ctx'),
    loaded: placement.loaded !== undefined,
    loadedContext: placement.loaded?.contextLength,
    modelMax: placement.model?.contextLength,
  });
}

/** The body as the node gets it: `options.num_ctx` set when the plan asks for one, else unchanged. */
export function withPlannedContext(body: unknown, plan: ContextPlan | undefined): unknown {
  if (plan?.numCtx === undefined || typeof body !== 'object' || body === null) return body;
  return merged<object>(body, { options: merged<object>(optionsOf(body), { num_ctx: plan.numCtx }) });
}

/**
 * `x-fleet-context`: what was done (`fits`, `num_ctx=32768 (loaded 4096)`, `client num_ctx=8192`, …);
 * `x-fleet-context-overflow` only when the prompt estimate is still over the context it runs with.
 */
export function contextHeaders(routing: RoutingRequest, plan: ContextPlan | undefined): Record<string, string> {
  if (plan === undefined || routing.promptTokens === undefined) return {};
  const headers: Record<string, string> = { [CONTEXT_HEADER]: plan.description };
  const overflow = contextOverflow(routing.promptTokens, plan.window);
  if (overflow !== undefined) headers[CONTEXT_OVERFLOW_HEADER] = overflow;
  return headers;
}
