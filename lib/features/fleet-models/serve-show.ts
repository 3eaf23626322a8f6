/**
 * `POST /api/show` (spec §4.4): one model's details, asked of a node that holds it (the node client's
 * `showModel` picks the node from the snapshot).
 */
import { BadRequestError } from '../../core/errors';
import { ollamaShowRequestSchema } from '../../core/wire/ollama-show';
import { readJsonBody } from '../../services/http/parse-json';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { ShowModel } from '../../services/node-client/show-model';
import type { FleetModelsDeps } from './serve-fleet-models';

/** What `/api/show` uses from the instance: the snapshot, and the node client that asks a holder. */
export interface ShowDeps extends FleetModelsDeps {
  readonly showModel: ShowModel;
}

export async function serveShow(deps: ShowDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const body = readJsonBody(request, ollamaShowRequestSchema);
  const name = body.model ?? body.name;
  if (name === undefined || name.trim() === '') throw new BadRequestError('model is required', 'model');
  const snapshot = await deps.registry.snapshot();
  await sendJson(response, await deps.showModel(snapshot, name.trim(), body.verbose === true));
}
