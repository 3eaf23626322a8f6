/**
 * The steps `/v1/messages` and `/v1/responses` share before routing (issue: messages items 2–3): resolve
 * the client's model id to a fleet model (../routing/resolve-model), fetch the request's image URLs,
 * translate to an Ollama chat request knowing whether that model thinks, apply the context layers, and
 * build the routing request. The family's handler keeps its own validation, translator and output.
 */

import { thinkingCapable } from '../../core/fleet/thinking-capable';
import { merged } from '../../core/merged';
import type { WaitClaim } from '../../core/queue/wait-line';
import { chatRoutingRequest } from '../../core/scoring/chat-routing-request';
import type { ModelResolution } from '../../core/scoring/resolve-model';
import { resolveModel } from '../../core/scoring/resolve-model';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import type { OllamaChatRequest } from '../../core/wire/ollama';
import { fetchImages, type ImageUrlAt } from '../../services/image-urls/fetch-images';
import { timedSnapshot } from '../../services/registry/timed-snapshot';
import type { ChatDeps } from './chat-deps';
import { contextLayerHeaders, modelResolutionHeaders } from './preparation-headers';
import { requestPerModel } from './thinking-per-model';

export interface ResolvedChatInput {
  /** The model id as the client sent it. */
  readonly model: string;
  readonly fallbackModels: readonly string[];
  readonly tags: readonly string[];
  /** Its place in a queue's line (priority, application): lib/services/http/request-claim. */
  readonly claim: WaitClaim;
  /** Messages style: the id's tier keyword picks the class of model (`haiku` → a fast one). */
  readonly tierKeywords: boolean;
  readonly needsVision: boolean;
  readonly needsTools: boolean;
  /** http(s) image URLs to fetch, each with the request field a failed fetch is reported against. */
  readonly imageUrls: readonly ImageUrlAt[];
  readonly signal: AbortSignal;
  translate(images: ReadonlyMap<string, string>, thinking: { readonly capable: boolean }): OllamaChatRequest;
}

export interface ResolvedChat {
  readonly resolution: ModelResolution;
  /** The request for the node, after the context layers, as `served` must get it (./thinking-per-model). */
  forModel(served: string): OllamaChatRequest;
  readonly routing: RoutingRequest;
  /** The resolution and context-layer headers of the reply. */
  readonly headers: Readonly<Record<string, string>>;
  /** How long resolving waited for the table's fleet read (../../services/registry/timed-snapshot). */
  readonly tableWaitMs: number | undefined;
}

export async function prepareResolvedChat(deps: ChatDeps, input: ResolvedChatInput): Promise<ResolvedChat> {
  const { config, registry, contextLayers } = deps;
  const { snapshot, tableWaitMs } = await timedSnapshot(registry);
  const resolution = resolveModel(input.model, snapshot, {
    map: config.modelMap,
    autoRoute: config.autoRoute,
    tierKeywords: input.tierKeywords,
    needsVision: input.needsVision,
    needsTools: input.needsTools,
  });
  const images = await fetchImages(input.imageUrls, { signal: input.signal, allow: config.imageUrlAllow });
  const translate = (capable: boolean) => input.translate(images, { capable });
  const capable = thinkingCapable(snapshot, resolution.model);
  const layers = await contextLayers({ request: translate(capable), tags: input.tags, signal: input.signal });
  const canonical = layers.request;
  const routing = chatRoutingRequest({
    model: resolution.model,
    fallbackModels: input.fallbackModels,
    tags: input.tags,
    messages: canonical.messages,
    tools: canonical.tools,
    promptTokens: layers.promptTokens,
    answerTokens: canonical.options?.num_predict,
    claim: input.claim,
  });
  const headers = merged<Record<string, string>>(
    modelResolutionHeaders(input.model, resolution),
    contextLayerHeaders(layers),
  );
  const forModel = requestPerModel(canonical, capable, snapshot, translate);
  return { resolution, forModel, routing, headers, tableWaitMs };
}
