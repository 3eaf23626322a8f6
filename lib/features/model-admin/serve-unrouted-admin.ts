/**
 * `POST /api/create` and `POST /api/push` (issue 20 item 11): answered 501 in Ollama's shape, saying why
 * and what to do instead, rather than routed to one node:
 * - create: `ollama create` first uploads the model's files as blobs (`/api/blobs/<digest>`) to the server
 *   that will build it; the router routes no blob uploads, so a create through it would fail on a node
 *   that has none of the files, or build on one node only while the fleet lists it as the fleet's. Create
 *   on the node (`OLLAMA_HOST=<node> ollama create …`); the router lists it after that node's next poll or
 *   heartbeat. A new name for an existing model is `/api/copy`, which the router serves fleet-wide.
 * - push: a push signs in to the registry with the key of the Ollama that runs it (`~/.ollama/id_ed25519`
 *   on the node), which must be the key added to the user's registry account; which node holds that key
 *   is known to the operator, not the router. Push from that node; the message names the nodes that
 *   hold the model.
 */
import { RouterError } from '../../core/errors';
import type { FleetSnapshot } from '../../core/fleet/node';
import { isPlaceable, modelNameKeys } from '../../core/fleet/snapshot';
import { namedModelRequestSchema } from '../../core/wire/model-admin';
import type { Route } from '../../services/http/handler';
import { readJsonBody } from '../../services/http/parse-json';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { FleetRegistry } from '../../services/registry/registry';
import { firstNonBlank } from './model-names';

function notServed(message: string): RouterError {
  return new RouterError(501, message, { code: 'not_implemented', retryable: false });
}

function holders(snapshot: FleetSnapshot, name: string): string {
  const keys = new Set(modelNameKeys(name));
  const ids = snapshot.nodes.filter((node) => isPlaceable(node) && node.models.some((model) => keys.has(model.name)));
  return ids.length === 0 ? 'no node holds it now' : `it is on ${ids.map((node) => node.id).join(', ')}`;
}

export const serveCreate: Route = async (request) => {
  const body = readJsonBody(request, namedModelRequestSchema);
  const name = firstNonBlank(body.model, body.name) ?? '<name>';
  throw notServed(
    `the fleet router does not create models: the model's files must be uploaded to the node that builds it. ` +
      `Create it on a node (OLLAMA_HOST=<node address> ollama create ${name} -f Modelfile; node addresses are in ` +
      `GET /fleet/status) and the router lists it after that node's next poll or heartbeat; ` +
      `to give an existing model a new name, use /api/copy`,
  );
};

/** What a push's answer uses from the instance: the registry's snapshot, to name the nodes that hold the model. */
export interface PushDeps {
  readonly registry: Pick<FleetRegistry, 'snapshot'>;
}

export async function servePush(deps: PushDeps, request: HttpRequest, _response: ResponseSink): Promise<void> {
  const body = readJsonBody(request, namedModelRequestSchema);
  const name = firstNonBlank(body.model, body.name) ?? '<name>';
  const where = name === '<name>' ? '' : ` (${holders(await deps.registry.snapshot(), name)})`;
  throw notServed(
    `the fleet router does not push models: a push signs in to the registry with the key of the Ollama that runs it. ` +
      `Push from the node whose key your registry account knows${where}: OLLAMA_HOST=<node address> ollama push ${name}`,
  );
}
