/**
 * `POST /dashboard/api/pull` `{node_id?, model}` (also `name`; issue 22 item 5): the operator's pull from
 * the dashboard is the same pull as `POST /api/pull` (./serve-pull) — the node named or chosen, the lock
 * in the table (409 while the model is being pulled), the node's NDJSON progress relayed as it comes,
 * the model recorded on the node before `success` — with errors in the dashboard's (OpenAI) shape, and a
 * missing model answered with a 400 naming the dashboard's field, `model`.
 */
import { BadRequestError } from '../../core/errors';
import { pullRequestSchema } from '../../core/wire/pull';
import { readJsonBody } from '../../services/http/parse-json';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import { type PullDeps, servePull } from './serve-pull';

export async function serveDashboardPull(deps: PullDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const body = readJsonBody(request, pullRequestSchema);
  const named = [body.model, body.name].some((value) => value !== undefined && value !== null && value.trim() !== '');
  if (!named) throw new BadRequestError('model is required', 'model');
  await servePull(deps, request, response);
}
