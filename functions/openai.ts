/** The OpenAI-style surface (spec §4.2): models, chat, responses, embeddings, rerank and images. */

import { serveOpenAIChat } from '../lib/features/chat/openai-chat';
import { serveResponses } from '../lib/features/chat/responses-chat';
import { serveOpenAIEmbeddings } from '../lib/features/embeddings/serve-embeddings';
import { serveOpenAIModels } from '../lib/features/fleet-models/serve-fleet-models';
import { serveOpenAIImages } from '../lib/features/images/serve-images';
import { serveRerank } from '../lib/features/rerank/serve-rerank';
import { getServices, handlerOptions, type Services } from '../lib/instance';
import { createHandler, type RouteTable } from '../lib/services/http/handler';

export const routes = (services: Services): RouteTable => ({
  'GET /v1/models': (request, response) => serveOpenAIModels(services, request, response),
  'POST /v1/chat/completions': (request, response) => serveOpenAIChat(services, request, response),
  'POST /v1/responses': (request, response) => serveResponses(services, request, response),
  'POST /v1/embeddings': (request, response) => serveOpenAIEmbeddings(services, request, response),
  'POST /v1/rerank': (request, response) => serveRerank(services, request, response),
  'POST /v1/images/generations': (request, response) => serveOpenAIImages(services, request, response),
});

export const handler = createHandler(() => routes(getServices()), handlerOptions);
