/**
 * `DELETE /api/delete` for the fleet (issue 20 item 11; Ollama's `DeleteRequest`): `{"model"}` or the
 * legacy `{"name"}` (Open WebUI's model management, ollama-js), and the router's `node_id`. The model is
 * deleted through each target node's own Ollama (`admin-targets`: the named node, else every node that
 * holds it), all at once; the answer is Ollama's (200 empty; 404 `model '<name>' not found`), or a
 * partial failure naming the nodes (`send-admin-outcome`). The registry forgets the model on the nodes
 * that deleted it before the client hears back, so `/api/tags` right after no longer lists it there.
 * The delete is traced with the key that asked for it (issue 46: ../../services/analytics/change-trace).
 */
import { BadRequestError } from '../../core/errors';
import { deleteRequestSchema } from '../../core/wire/model-admin';
import { tracedChange } from '../../services/analytics/change-trace';
import { readJsonBody } from '../../services/http/parse-json';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import { adminOutcome, changeOutcomeOf } from './admin-outcome';
import { adminTargets } from './admin-targets';
import { callNodeAdmin } from './call-node-admin';
import type { ModelAdminDeps } from './model-admin-deps';
import { firstNonBlank, nameOnNode } from './model-names';
import { sendAdminOutcome } from './send-admin-outcome';
import { forgetDeletedModel } from './update-registry';

export async function serveDelete(deps: ModelAdminDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const body = readJsonBody(request, deleteRequestSchema);
  // Ollama reads `model` first, then the legacy `name`.
  const name = firstNonBlank(body.model, body.name);
  if (name === undefined) throw new BadRequestError('model is required', 'model');
  const notFound = `model '${name}' not found`;
  const outcome = await tracedChange(
    deps.traces,
    { request, style: 'delete', model: name },
    async () => {
      const targets = adminTargets(await deps.registry.snapshot(), {
        name,
        nodeId: firstNonBlank(body.node_id),
        action: 'deleted',
        notFound,
      });
      const answers = await Promise.all(
        targets.map((node) =>
          callNodeAdmin(node, { method: 'DELETE', path: '/api/delete', body: { model: nameOnNode(node, name) } }),
        ),
      );
      const result = adminOutcome(answers, `deleting model '${name}'`);
      const deleted = result.kind === 'done' ? result.nodes : result.kind === 'failed' ? result.succeeded : [];
      await forgetDeletedModel(deps.registry, deleted, name);
      return result;
    },
    (result) => changeOutcomeOf(result, notFound),
  );
  await sendAdminOutcome(response, outcome, notFound);
}
