/**
 * The fleet's models as clients list them (spec §4.2, §4.4): `GET /api/tags`, `GET /api/ps`,
 * `GET /api/version` and `GET /v1/models`, each the registry's snapshot through its pure view.
 */
import type { FleetSnapshot } from '../../core/fleet/node';
import { toApiPs } from '../../core/views/api-ps';
import { toApiTags } from '../../core/views/api-tags';
import { ollamaApiVersion } from '../../core/views/api-version';
import { toOpenAIModels } from '../../core/views/openai-models';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { FleetRegistry } from '../../services/registry/registry';

/** What these views use from the instance: the registry's snapshot, nothing else. */
export interface FleetModelsDeps {
  readonly registry: Pick<FleetRegistry, 'snapshot'>;
}

async function sendView(
  deps: FleetModelsDeps,
  response: ResponseSink,
  view: (snapshot: FleetSnapshot) => unknown,
): Promise<void> {
  await sendJson(response, view(await deps.registry.snapshot()));
}

export async function serveTags(deps: FleetModelsDeps, _request: HttpRequest, response: ResponseSink): Promise<void> {
  await sendView(deps, response, toApiTags);
}

export async function servePs(deps: FleetModelsDeps, _request: HttpRequest, response: ResponseSink): Promise<void> {
  await sendView(deps, response, toApiPs);
}

export async function serveVersion(
  deps: FleetModelsDeps,
  _request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  await sendView(deps, response, (snapshot) => ({ version: ollamaApiVersion(snapshot) }));
}

export async function serveOpenAIModels(
  deps: FleetModelsDeps,
  _request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  await sendView(deps, response, (snapshot) => toOpenAIModels(snapshot, Date.now()));
}
