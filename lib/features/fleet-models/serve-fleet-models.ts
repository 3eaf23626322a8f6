/**
 * The fleet's models as clients list them (spec §4.2, §4.4): `GET /api/tags`, `GET /api/ps`,
 * `GET /api/version` and `GET /v1/models`, each the registry's snapshot through its pure view.
 */
import type { FleetSnapshot } from '../../core/fleet/node';
import { toApiPs } from '../../core/views/api-ps';
import { toApiTags } from '../../core/views/api-tags';
import { ollamaApiVersion } from '../../core/views/api-version';
import { toOpenAIModels } from '../../core/views/openai-models';
import type { Route } from '../../services/http/handler';
import { sendJson } from '../../services/http/reply';
import type { FleetRegistry } from '../../services/registry/registry';

/** The one thing these views read. */
export type SnapshotSource = Pick<FleetRegistry, 'snapshot'>;

function serveView(registry: SnapshotSource, view: (snapshot: FleetSnapshot) => unknown): Route {
  return async (_request, response) => {
    await sendJson(response, view(await registry.snapshot()));
  };
}

export const serveTags = (registry: SnapshotSource): Route => serveView(registry, toApiTags);

export const servePs = (registry: SnapshotSource): Route => serveView(registry, toApiPs);

export const serveVersion = (registry: SnapshotSource): Route =>
  serveView(registry, (snapshot) => ({ version: ollamaApiVersion(snapshot) }));

export const serveOpenAIModels = (registry: SnapshotSource): Route =>
  serveView(registry, (snapshot) => toOpenAIModels(snapshot, Date.now()));
