/**
 * `POST /v1/chat/completions` (spec §4.2): validate, fetch image URLs (bounded, concurrent), translate
 * to an Ollama chat request, route and relay as OpenAI's body or chunk stream. The node streams when the
 * client does; its one-object answer goes through the same relay as a stream of one line.
 */
import { randomUUID } from 'node:crypto';
import { thinkingCapable } from '../../core/fleet/thinking-capable';
import { merged } from '../../core/merged';
import { fromOpenAIChatRequest, imageUrlsToFetch } from '../../core/protocols/openai/from-openai-chat-request';
import { chatRoutingRequest } from '../../core/scoring/chat-routing-request';
import { mergeTags } from '../../core/scoring/tags';
import { parseOpenAIChatRequest } from '../../core/wire/openai';
import { readJson, requireModel, requireValid } from '../../services/http/parse-json';
import type { HttpRequest } from '../../services/http/request';
import { requestClaim } from '../../services/http/request-claim';
import type { ResponseSink } from '../../services/http/response-sink';
import { fetchImages } from '../../services/image-urls/fetch-images';
import { timedSnapshot } from '../../services/registry/timed-snapshot';
import type { ChatDeps } from './chat-deps';
import { createOpenAIOutput } from './openai-output';
import { serveChat } from './serve-chat';
import { requestPerModel, visibleBudgetFor } from './thinking-per-model';

export async function serveOpenAIChat(deps: ChatDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const raw = readJson(request);
  requireModel(raw);
  const body = requireValid(parseOpenAIChatRequest(raw));
  const tags = mergeTags({
    metadataTags: body.metadata?.tags,
    headerValue: request.header('x-service-tags'),
    user: body.user,
  });
  const claim = requestClaim(request, { tags, metadataPriority: body.metadata?.['priority'] }, deps.config);
  // The sink's AbortSignal costs an AbortController: made only for a request with URLs to fetch.
  const imageUrls = imageUrlsToFetch(body);
  const { config, registry } = deps;
  const images =
    imageUrls.length === 0
      ? new Map<string, string>()
      : await fetchImages(imageUrls, { signal: response.signal, allow: config.imageUrlAllow });
  const { snapshot, tableWaitMs } = await timedSnapshot(registry);
  const translate = (capable: boolean) => fromOpenAIChatRequest(body, { images, thinking: { capable } });
  const capable = thinkingCapable(snapshot, body.model);
  const canonical = translate(capable);
  const forModel = requestPerModel(canonical, capable, snapshot, translate);
  const id = `chatcmpl-${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  const created = Math.floor(Date.now() / 1000);
  const routing = chatRoutingRequest({
    model: body.model,
    fallbackModels: body.fallback_models ?? [],
    tags,
    messages: canonical.messages,
    tools: canonical.tools,
    answerTokens: canonical.options?.num_predict,
    claim,
  });
  // The client's budget as the translator reads it (`max_completion_tokens`, `max_tokens`, `options`).
  const clientBudget = body.max_completion_tokens ?? body.max_tokens ?? body.options?.['num_predict'];
  const budgetFor = (served: string) => visibleBudgetFor(clientBudget, forModel(served), routing.promptTokens);
  const streaming = body.stream === true;
  await serveChat(deps, {
    request,
    response,
    style: 'openai-chat',
    family: 'openai',
    tags,
    tableWaitMs,
    routing,
    nodePath: '/api/chat',
    // The node streams whenever the router keeps the budget, so it can be stopped there.
    nodeBody: (served) =>
      merged<object>(forModel(served), { model: served, stream: streaming || budgetFor(served) !== undefined }),
    output: (served) =>
      createOpenAIOutput({
        id,
        created,
        model: served,
        streaming,
        includeUsage: body.stream_options?.include_usage === true,
        options: forModel(served).options,
        visibleBudget: budgetFor(served),
      }),
  });
}
