/**
 * `POST /v1/messages` (spec §4.3; protocols §6): validate, resolve the client's model id to a fleet
 * model (anchor §2.8: `claude-haiku-4-5` → a fast loaded model, other ids → a large one), fetch image
 * URLs, translate to an Ollama chat request, apply the context layers (anchor §3.8: clear old tool
 * results, summarise, 413 over the cap), route and relay as an Anthropic message or event stream.
 * `metadata.user_id` is the `user:` tag; the `anthropic-version` header is echoed; the resolution shows
 * in `x-fleet-requested-model` and `x-fleet-model-resolution` (the served model is `x-fleet-model`).
 */
import { randomUUID } from 'node:crypto';
import { merged } from '../../core/merged';
import { anthropicBlocks } from '../../core/protocols/anthropic/anthropic-blocks';
import {
  anthropicImageUrls,
  fromAnthropicMessagesRequest,
} from '../../core/protocols/anthropic/from-anthropic-messages-request';
import { mergeTags } from '../../core/scoring/tags';
import { type AnthropicMessagesRequest, parseAnthropicMessagesRequest } from '../../core/wire/anthropic';
import { readJson, requireModel, requireValid } from '../../services/http/parse-json';
import type { HttpRequest } from '../../services/http/request';
import { requestClaim } from '../../services/http/request-claim';
import type { ResponseSink } from '../../services/http/response-sink';
import { createAnthropicOutput } from './anthropic-output';
import type { ChatDeps } from './chat-deps';
import { prepareResolvedChat } from './prepare-resolved-chat';
import { serveChat } from './serve-chat';
import { visibleBudgetFor } from './thinking-per-model';

export async function serveAnthropicMessages(
  deps: ChatDeps,
  request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const raw = readJson(request);
  requireModel(raw);
  const body = requireValid(parseAnthropicMessagesRequest(raw));
  const tags = mergeTags({
    metadataTags: body.metadata?.tags,
    headerValue: request.header('x-service-tags'),
    user: body.metadata?.user_id,
  });
  const claim = requestClaim(request, { tags, metadataPriority: body.metadata?.['priority'] }, deps.config);
  const { forModel, routing, headers, tableWaitMs } = await prepareResolvedChat(deps, {
    model: body.model,
    fallbackModels: body.fallback_models ?? [],
    tags,
    claim,
    tierKeywords: true,
    needsVision: hasImages(body),
    needsTools: (body.tools?.length ?? 0) > 0,
    imageUrls: anthropicImageUrls(body),
    signal: response.signal,
    translate: (images, thinking) => fromAnthropicMessagesRequest(body, { images, thinking }),
  });
  const version = request.header('anthropic-version');
  const id = `msg_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  const streaming = body.stream === true;
  const budgetFor = (served: string) => visibleBudgetFor(body.max_tokens, forModel(served), routing.promptTokens);
  await serveChat(deps, {
    request,
    response,
    style: 'anthropic-messages',
    family: 'anthropic',
    tags,
    tableWaitMs,
    routing,
    requestedModel: body.model,
    headers: merged<Record<string, string>>(
      headers,
      version !== undefined ? { 'anthropic-version': version } : undefined,
    ),
    nodePath: '/api/chat',
    // The node streams whenever the router keeps the budget, so it can be stopped there.
    nodeBody: (served) =>
      merged<object>(forModel(served), { model: served, stream: streaming || budgetFor(served) !== undefined }),
    output: (served) =>
      createAnthropicOutput({
        id,
        model: served,
        streaming,
        stopSequences: body.stop_sequences ?? [],
        ...(routing.promptTokens !== undefined ? { inputTokensEstimate: routing.promptTokens } : {}),
        options: forModel(served).options,
        visibleBudget: budgetFor(served),
        showThinking: asksForThinking(body),
      }),
  });
}

/** The client sent `thinking` and did not switch it off: only then does it get thinking blocks. */
function asksForThinking(body: AnthropicMessagesRequest): boolean {
  const thinking = body.thinking;
  return thinking !== undefined && thinking !== null && thinking.type !== 'disabled';
}

/** Any image block, wherever it sits (tool results and documents included): only vision models may serve. */
function hasImages(body: AnthropicMessagesRequest): boolean {
  for (const { block } of anthropicBlocks(body.messages)) if (block.type === 'image') return true;
  return false;
}
