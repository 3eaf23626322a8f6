/**
 * `POST /api/chat` and `POST /api/generate` (spec §4.4): validate, merge tags, strip the router's own
 * fields, route, and relay. The node is asked exactly what the client asked (stream or one object); its
 * one-object answer goes through the same relay as a stream of one line.
 */
import { readJson, requireModel, requireValid } from '../http/parse-json';
import type { HttpRequest } from '../http/request';
import type { ResponseSink } from '../http/response-sink';
import { merged } from '../merged';
import { mergeTags } from '../routing/tags';
import {
  ollamaStreamRequested,
  parseOllamaClientChatRequest,
  parseOllamaClientGenerateRequest,
  stripRouterFields,
} from '../wire/ollama';
import { chatRoutingRequest } from './chat-routing-request';
import { createOllamaOutput } from './ollama-output';
import { serveChat } from './serve-chat';

export async function serveOllamaChat(
  request: HttpRequest,
  response: ResponseSink,
  endpoint: 'chat' | 'generate',
): Promise<void> {
  const raw = readJson(request);
  requireModel(raw);
  const body =
    endpoint === 'chat'
      ? requireValid(parseOllamaClientChatRequest(raw))
      : requireValid(parseOllamaClientGenerateRequest(raw));
  const tags = mergeTags({
    metadataTags: body.metadata?.tags,
    headerValue: request.header('x-service-tags'),
    user: body.user,
  });
  const messages =
    'messages' in body && Array.isArray(body.messages)
      ? body.messages
      : [
          ...('system' in body && typeof body.system === 'string' ? [{ role: 'system', content: body.system }] : []),
          {
            role: 'user',
            content: 'prompt' in body && typeof body.prompt === 'string' ? body.prompt : '',
            images: 'images' in body && Array.isArray(body.images) ? body.images : [],
          },
        ];
  const forwarded = stripRouterFields(body);
  const streaming = ollamaStreamRequested(body);
  await serveChat({
    request,
    response,
    style: endpoint === 'chat' ? 'ollama-chat' : 'ollama-generate',
    family: 'ollama',
    tags,
    routing: chatRoutingRequest({
      model: body.model,
      fallbackModels: body.fallback_models ?? [],
      tags,
      messages,
      tools: 'tools' in body && Array.isArray(body.tools) ? body.tools.length : 0,
    }),
    nodePath: endpoint === 'chat' ? '/api/chat' : '/api/generate',
    nodeBody: (model) => merged<object>(forwarded, { model, stream: streaming }),
    output: () => createOllamaOutput(endpoint, streaming, body.options),
  });
}
