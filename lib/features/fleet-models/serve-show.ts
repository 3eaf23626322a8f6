/**
 * `POST /api/show` (spec §4.4): one model's details, asked of a node that holds it (the node client's
 * `showModel` picks the node from the snapshot).
 */
import { BadRequestError } from '../../core/errors';
import { ollamaShowRequestSchema } from '../../core/wire/ollama-show';
import type { Route } from '../../services/http/handler';
import { readJsonBody } from '../../services/http/parse-json';
import { sendJson } from '../../services/http/reply';
import type { ShowModel } from '../../services/node-client/show-model';
import type { SnapshotSource } from './serve-fleet-models';

export interface ShowSources {
  readonly registry: SnapshotSource;
  readonly showModel: ShowModel;
}

export function serveShow(sources: ShowSources): Route {
  return async (request, response) => {
    const body = readJsonBody(request, ollamaShowRequestSchema);
    const name = body.model ?? body.name;
    if (name === undefined || name.trim() === '') throw new BadRequestError('model is required', 'model');
    const snapshot = await sources.registry.snapshot();
    await sendJson(response, await sources.showModel(snapshot, name.trim(), body.verbose === true));
  };
}
