/**
 * `POST /api/chat` and `POST /api/generate` (spec §4.4): validate, merge tags, strip the router's own
 * fields, route, and relay. The node is asked exactly what the client asked (stream or one object); its
 * one-object answer goes through the same relay as a stream of one line. Generate with an Ollama-native
 * image model is relayed the same way, routed as image work.
 */

import type { FleetSnapshot } from '../../core/fleet/node';
import { merged } from '../../core/merged';
import type { WaitClaim } from '../../core/queue/wait-line';
import { type ChatRoutingInput, chatRoutingRequest } from '../../core/scoring/chat-routing-request';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import { mergeTags } from '../../core/scoring/tags';
import {
  type OllamaClientChatRequest,
  type OllamaClientGenerateRequest,
  ollamaStreamRequested,
  parseOllamaClientChatRequest,
  parseOllamaClientGenerateRequest,
  stripRouterFields,
} from '../../core/wire/ollama';
import { readJson, requireModel, requireValid } from '../../services/http/parse-json';
import type { HttpRequest } from '../../services/http/request';
import { requestClaim } from '../../services/http/request-claim';
import type { ResponseSink } from '../../services/http/response-sink';
import { addWaits, timedSnapshot } from '../../services/registry/timed-snapshot';
import { requireImageGeneration } from '../../services/settings/require-image-generation';
import type { ChatDeps } from './chat-deps';
import { createOllamaOutput } from './ollama-output';
import { serveChat } from './serve-chat';

/** A validated body and what it is routed by: the chat's messages, or generate's system and prompt. */
interface RoutedBody {
  readonly body: OllamaClientChatRequest | OllamaClientGenerateRequest;
  readonly messages: ChatRoutingInput['messages'];
  readonly tools: readonly unknown[] | null | undefined;
}

function readChat(raw: unknown): RoutedBody {
  const body = requireValid(parseOllamaClientChatRequest(raw));
  return { body, messages: body.messages ?? [], tools: body.tools };
}

/**
 * Generate is routed by its own fields only: a chat field a client sends along (`messages`, `tools`)
 * is forwarded untouched, as Ollama ignores it, and never read.
 */
function readGenerate(raw: unknown): RoutedBody {
  const body = requireValid(parseOllamaClientGenerateRequest(raw));
  const system = typeof body.system === 'string' ? [{ role: 'system', content: body.system }] : [];
  return {
    body,
    messages: [...system, { role: 'user', content: body.prompt ?? '', images: body.images ?? [] }],
    tools: undefined,
  };
}

/**
 * Generate with an Ollama-native image model (the node's own `/api/generate` paints it: progress lines,
 * then the image on the last) is image generation: it needs image generation switched on, and is routed
 * to image models only. Undefined for any other model.
 */
async function imageRouting(
  deps: ChatDeps,
  body: OllamaClientGenerateRequest,
  snapshot: FleetSnapshot,
  claim: WaitClaim,
): Promise<{ routing: RoutingRequest; settingsWaitMs: number | undefined } | undefined> {
  const placements = snapshot.placements.get(body.model) ?? [];
  if (!placements.some((placement) => placement.kind === 'image' && placement.backend === 'ollama')) return undefined;
  const settingsWaitMs = await requireImageGeneration(deps.settings);
  const routing: RoutingRequest = {
    model: body.model,
    fallbackModels: body.fallback_models ?? [],
    kind: 'image',
    needsVision: false,
    claim,
  };
  return { routing, settingsWaitMs };
}

export async function serveOllamaChat(
  deps: ChatDeps,
  request: HttpRequest,
  response: ResponseSink,
  endpoint: 'chat' | 'generate',
): Promise<void> {
  const raw = readJson(request);
  requireModel(raw);
  const { body, messages, tools } = endpoint === 'chat' ? readChat(raw) : readGenerate(raw);
  const tags = mergeTags({
    metadataTags: body.metadata?.tags,
    headerValue: request.header('x-service-tags'),
    user: body.user,
  });
  const claim = requestClaim(request, { tags, metadataPriority: body.metadata?.['priority'] }, deps.config);
  const forwarded = stripRouterFields(body);
  const streaming = ollamaStreamRequested(body);
  // A generate may be image generation: the fleet says which models paint (any wait for it is traced).
  const fleet = endpoint === 'generate' ? await timedSnapshot(deps.registry) : undefined;
  const image = fleet !== undefined ? await imageRouting(deps, body, fleet.snapshot, claim) : undefined;
  const routing =
    image?.routing ??
    chatRoutingRequest({
      model: body.model,
      fallbackModels: body.fallback_models ?? [],
      tags,
      messages,
      tools,
      answerTokens: body.options?.num_predict,
      claim,
    });
  await serveChat(deps, {
    request,
    response,
    style: endpoint === 'chat' ? 'ollama-chat' : 'ollama-generate',
    family: 'ollama',
    tags,
    tableWaitMs: addWaits(fleet?.tableWaitMs, image?.settingsWaitMs),
    routing,
    nodePath: endpoint === 'chat' ? '/api/chat' : '/api/generate',
    nodeBody: (model) => merged<object>(forwarded, { model, stream: streaming }),
    output: () => createOllamaOutput(endpoint, streaming, body.options),
  });
}
