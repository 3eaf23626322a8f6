/** The OpenAI-style surface (spec §4.2): models, chat, responses, embeddings, rerank and images. */
import { serveOpenAIChat } from '../lib/chat/openai-chat';
import { serveResponses } from '../lib/chat/responses-chat';
import { serveOpenAIEmbeddings } from '../lib/embeddings/serve-embeddings';
import { toOpenAIModels } from '../lib/fleet/views/openai-models';
import { createHandler, type Route, type RouteTable } from '../lib/http/handler';
import { sendJson } from '../lib/http/reply';
import { serveOpenAIImages } from '../lib/images/serve-images';
import { serveRerank } from '../lib/rerank/serve-rerank';
import { getServices, handlerOptions } from '../lib/services';

const models: Route = async (_request, response) => {
  const snapshot = await getServices().registry.snapshot();
  await sendJson(response, toOpenAIModels(snapshot, Date.now()));
};

export const routes: RouteTable = {
  'GET /v1/models': models,
  'POST /v1/chat/completions': serveOpenAIChat,
  'POST /v1/responses': serveResponses,
  'POST /v1/embeddings': serveOpenAIEmbeddings,
  'POST /v1/rerank': serveRerank,
  'POST /v1/images/generations': serveOpenAIImages,
};

export const handler = createHandler(routes, handlerOptions);
