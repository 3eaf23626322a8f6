/**
 * A translated chat request as each model that may serve it must get it. Translators decide two fields
 * by whether the model thinks: `think` goes only to a model with the `thinking` capability (Ollama
 * answers 400 to it otherwise), and such a model's output budget `num_predict` is raised
 * (../protocols/thinking-budget). The request is translated for the model the client asked for; a
 * fallback model that thinks where that one does not, or the other way round, gets those two fields as
 * the translator gives them for it, and everything else (messages, the context layers' work) unchanged.
 */
import type { FleetSnapshot } from '../../core/fleet/node';
import { thinkingCapable } from '../../core/fleet/thinking-capable';
import { visibleBudgetOf } from '../../core/protocols/thinking-budget';
import type { VisibleBudgetOptions } from '../../core/protocols/visible-budget';
import type { OllamaChatRequest } from '../../core/wire/ollama';

/** The request translated for a model that thinks (`capable`) or does not. Pure. */
export type TranslateForThinking = (capable: boolean) => OllamaChatRequest;

/**
 * `canonical` was translated for a model with thinking capability `capable`; the returned function gives
 * the request for a served model, translating again (once) only for a model whose capability differs.
 */
export function requestPerModel(
  canonical: OllamaChatRequest,
  capable: boolean,
  snapshot: FleetSnapshot,
  translate: TranslateForThinking,
): (served: string) => OllamaChatRequest {
  let other: OllamaChatRequest | undefined;
  // The relay asks twice for the model that serves (its body, then its output's options): looked up once.
  let lastServed: string | undefined;
  let lastRequest = canonical;
  return (served) => {
    if (served === lastServed) return lastRequest;
    lastServed = served;
    if (thinkingCapable(snapshot, served) === capable) lastRequest = canonical;
    else lastRequest = other ??= withThinkingOf(canonical, translate(!capable));
    return lastRequest;
  };
}

/** `canonical` with `think` and `num_predict` as `variant` has them (absent when it has none). */
function withThinkingOf(canonical: OllamaChatRequest, variant: OllamaChatRequest): OllamaChatRequest {
  const { think: _think, ...rest } = canonical;
  const { num_predict: _budget, ...options } = canonical.options ?? {};
  const budget = variant.options?.['num_predict'];
  const hasOptions = canonical.options !== undefined || budget !== undefined;
  return {
    ...rest,
    ...(variant.think !== undefined ? { think: variant.think } : {}),
    ...(hasOptions ? { options: budget !== undefined ? { ...options, num_predict: budget } : options } : {}),
  };
}

/**
 * The visible budget the reply to `sent` must keep (`../protocols/visible-budget`): the client's budget
 * when `sent` carries the raised one for it, with the router's prompt estimate for a cut reply's usage.
 */
export function visibleBudgetFor(
  clientBudget: unknown,
  sent: OllamaChatRequest,
  promptTokens: number | undefined,
): VisibleBudgetOptions | undefined {
  const limit = visibleBudgetOf(clientBudget, sent.options?.['num_predict']);
  if (limit === undefined) return undefined;
  return promptTokens === undefined ? { limit } : { limit, promptTokens };
}
