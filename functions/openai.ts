/** The OpenAI-style surface (spec §4.2): models, chat, responses, embeddings, rerank and images. */

import { toOpenAIModels } from '../lib/core/views/openai-models';
import { serveOpenAIChat } from '../lib/features/chat/openai-chat';
import { serveResponses } from '../lib/features/chat/responses-chat';
import { serveOpenAIEmbeddings } from '../lib/features/embeddings/serve-embeddings';
import { serveOpenAIImages } from '../lib/features/images/serve-images';
import { serveRerank } from '../lib/features/rerank/serve-rerank';
import { getServices, handlerOptions } from '../lib/instance';
import { createHandler, type Route, type RouteTable } from '../lib/services/http/handler';
import { sendJson } from '../lib/services/http/reply';

const models: Route = async (_request, response) => {
  const snapshot = await getServices().registry.snapshot();
  await sendJson(response, toOpenAIModels(snapshot, Date.now()));
};

export const routes: RouteTable = {
  'GET /v1/models': models,
  'POST /v1/chat/completions': (request, response) => serveOpenAIChat(getServices(), request, response),
  'POST /v1/responses': (request, response) => serveResponses(getServices(), request, response),
  'POST /v1/embeddings': (request, response) => serveOpenAIEmbeddings(getServices(), request, response),
  'POST /v1/rerank': (request, response) => serveRerank(getServices(), request, response),
  'POST /v1/images/generations': (request, response) => serveOpenAIImages(getServices(), request, response),
};

export const handler = createHandler(routes, handlerOptions);
