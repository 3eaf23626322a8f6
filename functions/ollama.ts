/**
 * The Ollama-style surface (spec §4.4): liveness probe, version, the fleet's models and loaded models,
 * chat and generate, embeddings, model pulls, and model admin (delete and copy fleet-wide; create and
 * push answered with what to do instead).
 */

import { BadRequestError } from '../lib/core/errors';
import type { FleetSnapshot } from '../lib/core/fleet/node';
import { toApiPs } from '../lib/core/views/api-ps';
import { toApiTags } from '../lib/core/views/api-tags';
import { ollamaApiVersion } from '../lib/core/views/api-version';
import { ollamaShowRequestSchema } from '../lib/core/wire/ollama-show';
import { serveOllamaChat } from '../lib/features/chat/ollama-chat';
import { serveOllamaEmbed, serveOllamaEmbeddings } from '../lib/features/embeddings/serve-embeddings';
import { serveCopy } from '../lib/features/model-admin/serve-copy';
import { serveDelete } from '../lib/features/model-admin/serve-delete';
import { serveCreate, servePush } from '../lib/features/model-admin/serve-unrouted-admin';
import { servePull } from '../lib/features/pull/serve-pull';
import { getServices, handlerOptions } from '../lib/instance';
import { createHandler, type Route, type RouteTable } from '../lib/services/http/handler';
import { readJsonBody } from '../lib/services/http/parse-json';
import { sendJson, sendText } from '../lib/services/http/reply';

const snapshot = (): Promise<FleetSnapshot> => getServices().registry.snapshot();

const root: Route = (_request, response) => sendText(response, 'Ollama is running');

const version: Route = async (_request, response) => {
  await sendJson(response, { version: ollamaApiVersion(await snapshot()) });
};

const tags: Route = async (_request, response) => {
  await sendJson(response, toApiTags(await snapshot()));
};

const ps: Route = async (_request, response) => {
  await sendJson(response, toApiPs(await snapshot()));
};

const show: Route = async (request, response) => {
  const body = readJsonBody(request, ollamaShowRequestSchema);
  const name = body.model ?? body.name;
  if (name === undefined || name.trim() === '') throw new BadRequestError('model is required', 'model');
  await sendJson(response, await getServices().showModel(await snapshot(), name.trim(), body.verbose === true));
};

export const routes: RouteTable = {
  'GET /': root,
  'HEAD /': root,
  'GET /api/version': version,
  'GET /api/tags': tags,
  'GET /api/ps': ps,
  'POST /api/show': show,
  'POST /api/chat': (request, response) => serveOllamaChat(getServices(), request, response, 'chat'),
  'POST /api/generate': (request, response) => serveOllamaChat(getServices(), request, response, 'generate'),
  'POST /api/pull': (request, response) => servePull(getServices(), request, response),
  'DELETE /api/delete': serveDelete,
  'POST /api/copy': serveCopy,
  'POST /api/create': serveCreate,
  'POST /api/push': servePush,
  'POST /api/embed': (request, response) => serveOllamaEmbed(getServices(), request, response),
  'POST /api/embeddings': (request, response) => serveOllamaEmbeddings(getServices(), request, response),
};

export const handler = createHandler(routes, handlerOptions);
