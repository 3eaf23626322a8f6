/**
 * `POST /v1/responses` (spec §4.2; protocols §4; anchor §3.9): validate, resolve the client's model id
 * to a fleet model (unmapped ids such as `gpt-5-codex` go to the best loaded model), fetch image URLs,
 * translate to an Ollama chat request, apply the context layers (anchor §3.8, as on `/v1/messages`: a
 * long Codex session resends its whole history too), route and relay as a Responses object or event
 * stream. The router is stateless: nothing is stored (`store: false` in every response), so
 * `previous_response_id` is a 400 naming it. The resolution shows in `x-fleet-requested-model` and
 * `x-fleet-model-resolution`. Hosted tools the client sent (Codex always sends `web_search`) are left out
 * of what the model sees and named in `x-fleet-dropped-tools` (comma-separated types), on every reply.
 */
import { randomUUID } from 'node:crypto';
import { BadRequestError } from '../../core/errors';
import { merged } from '../../core/merged';
import { responsesImageUrls } from '../../core/protocols/responses/from-responses-input';
import { fromResponsesRequest, responsesImageUrlsToFetch } from '../../core/protocols/responses/from-responses-request';
import { droppedResponsesTools, responsesToolIndex } from '../../core/protocols/responses/from-responses-tools';
import { mergeTags } from '../../core/scoring/tags';
import { parseResponsesRequest, type ResponsesRequest, responsesStreamRequested } from '../../core/wire/responses';
import { readJson, requireModel, requireValid } from '../../services/http/parse-json';
import type { HttpRequest } from '../../services/http/request';
import { requestClaim } from '../../services/http/request-claim';
import type { ResponseSink } from '../../services/http/response-sink';
import type { ChatDeps } from './chat-deps';
import { prepareResolvedChat } from './prepare-resolved-chat';
import { createResponsesOutput } from './responses-output';
import { serveChat } from './serve-chat';
import { visibleBudgetFor } from './thinking-per-model';

const unixSeconds = (): number => Math.floor(Date.now() / 1000);

export async function serveResponses(deps: ChatDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const raw = readJson(request);
  requireModel(raw);
  const body = requireValid(parseResponsesRequest(raw));
  rejectStoredState(body);
  const tags = mergeTags({
    metadataTags: body.metadata?.tags,
    headerValue: request.header('x-service-tags'),
    user: body.user,
  });
  const claim = requestClaim(request, { tags, metadataPriority: body.metadata?.['priority'] }, deps.config);
  const { forModel, routing, headers, tableWaitMs } = await prepareResolvedChat(deps, {
    model: body.model,
    fallbackModels: body.fallback_models ?? [],
    tags,
    claim,
    tierKeywords: false,
    needsVision: responsesImageUrls(body.input).length > 0,
    needsTools: declaresTools(body),
    imageUrls: responsesImageUrlsToFetch(body),
    signal: response.signal,
    translate: (images, thinking) => fromResponsesRequest(body, { images, thinking }),
  });
  const streaming = responsesStreamRequested(body);
  const clientBudget = body.max_output_tokens ?? body.options?.['num_predict'];
  const budgetFor = (served: string) => visibleBudgetFor(clientBudget, forModel(served), routing.promptTokens);
  const id = `resp_${randomUUID().replaceAll('-', '')}`;
  const createdAt = unixSeconds();
  await serveChat(deps, {
    request,
    response,
    style: 'openai-responses',
    family: 'openai',
    tags,
    tableWaitMs,
    routing,
    requestedModel: body.model,
    headers: merged<Record<string, string>>(headers, droppedToolsHeader(body)),
    nodePath: '/api/chat',
    // The node streams whenever the router keeps the budget, so it can be stopped there.
    nodeBody: (served) =>
      merged<object>(forModel(served), { model: served, stream: streaming || budgetFor(served) !== undefined }),
    output: (served) =>
      createResponsesOutput({
        id,
        createdAt,
        now: unixSeconds,
        model: served,
        request: body,
        stored: false,
        streaming,
        options: forModel(served).options,
        visibleBudget: budgetFor(served),
      }),
  });
}

/** Nothing is stored, so there is no earlier response to continue from. */
function rejectStoredState(body: ResponsesRequest): void {
  const previous = body.previous_response_id;
  if (previous === undefined || previous === null || previous === '') return;
  throw new BadRequestError(
    'previous_response_id is not supported: the router stores no responses. Send the whole conversation in input and set store: false',
    'previous_response_id',
  );
}

/** `x-fleet-dropped-tools: web_search,file_search` when hosted tools were left out; nothing otherwise. */
function droppedToolsHeader(body: ResponsesRequest): Record<string, string> {
  const dropped = droppedResponsesTools(body);
  return dropped.length === 0 ? {} : { 'x-fleet-dropped-tools': dropped.join(',') };
}

/** Whether the model is offered any tool (hosted tools are not offered, so they need no tool-capable model). */
function declaresTools(body: ResponsesRequest): boolean {
  return responsesToolIndex(body).size > 0;
}
