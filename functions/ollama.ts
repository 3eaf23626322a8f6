/**
 * The Ollama-style surface (spec §4.4): liveness probe, version, the fleet's models and loaded models,
 * chat and generate, embeddings, model pulls, and model admin (delete and copy fleet-wide; create and
 * push answered with what to do instead).
 */

import { serveOllamaChat } from '../lib/features/chat/ollama-chat';
import { serveOllamaEmbed, serveOllamaEmbeddings } from '../lib/features/embeddings/serve-embeddings';
import { servePs, serveTags, serveVersion } from '../lib/features/fleet-models/serve-fleet-models';
import { serveShow } from '../lib/features/fleet-models/serve-show';
import { serveCopy } from '../lib/features/model-admin/serve-copy';
import { serveDelete } from '../lib/features/model-admin/serve-delete';
import { serveCreate, servePush } from '../lib/features/model-admin/serve-unrouted-admin';
import { servePull } from '../lib/features/pull/serve-pull';
import { getServices, handlerOptions, type Services } from '../lib/instance';
import { createHandler, operatorRoute, type Route, type RouteTable } from '../lib/services/http/handler';
import { sendText } from '../lib/services/http/reply';

const root: Route = (_request, response) => sendText(response, 'Ollama is running');

export const routes = (services: Services): RouteTable => ({
  'GET /': root,
  'HEAD /': root,
  'GET /api/version': (request, response) => serveVersion(services, request, response),
  'GET /api/tags': (request, response) => serveTags(services, request, response),
  'GET /api/ps': (request, response) => servePs(services, request, response),
  'POST /api/show': (request, response) => serveShow(services, request, response),
  'POST /api/chat': (request, response) => serveOllamaChat(services, request, response, 'chat'),
  'POST /api/generate': (request, response) => serveOllamaChat(services, request, response, 'generate'),
  // Changes to the fleet: operator keys only (ARCHITECTURE.md §3.10). Create and push change nothing here
  // (they answer what to do instead), but they are changes in Ollama's API, and a later one may route.
  'POST /api/pull': operatorRoute((request, response) => servePull(services, request, response)),
  'DELETE /api/delete': operatorRoute((request, response) => serveDelete(services, request, response)),
  'POST /api/copy': operatorRoute((request, response) => serveCopy(services, request, response)),
  'POST /api/create': operatorRoute(serveCreate),
  'POST /api/push': operatorRoute((request, response) => servePush(services, request, response)),
  'POST /api/embed': (request, response) => serveOllamaEmbed(services, request, response),
  'POST /api/embeddings': (request, response) => serveOllamaEmbeddings(services, request, response),
});

export const handler = createHandler(() => routes(getServices()), handlerOptions);
