/**
 * `POST /dashboard/api/delete` `{node_id, model}` (issue 22 item 5; anchor §4.5 "dashboard model ops"):
 * deletes a model from one node through that node's Ollama (`DELETE /api/delete`, ./call-node-admin),
 * for the dashboard's model management. 400 naming a missing field; 404 for an unknown node, or a model
 * the node does not have (its record, or its own Ollama, says so); 503 for a node offline or draining.
 * The registry forgets the model on the node before the reply (./update-registry), so `/api/tags` right
 * after no longer lists it there. Answers `{ok, node_id, model}`; errors in the dashboard's shape. The
 * delete is traced with the key that asked for it (issue 46).
 */
import { BadRequestError, NotFoundError, RouterError, UpstreamError } from '../../core/errors';
import { modelNameKeys } from '../../core/fleet/snapshot';
import { deleteRequestSchema } from '../../core/wire/model-admin';
import { tracedChange } from '../../services/analytics/change-trace';
import { readJsonBody } from '../../services/http/parse-json';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import { adminOutcome } from './admin-outcome';
import { adminTargets } from './admin-targets';
import { callNodeAdmin } from './call-node-admin';
import type { ModelAdminDeps } from './model-admin-deps';
import { firstNonBlank } from './model-names';
import { forgetDeletedModel } from './update-registry';

export async function serveDashboardDelete(
  deps: ModelAdminDeps,
  request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const body = readJsonBody(request, deleteRequestSchema);
  const nodeId = firstNonBlank(body.node_id);
  if (nodeId === undefined) throw new BadRequestError('node_id is required', 'node_id');
  const name = firstNonBlank(body.model, body.name);
  if (name === undefined) throw new BadRequestError('model is required', 'model');
  const notFound = `model '${name}' not found on node '${nodeId}'`;
  const deleted = await tracedChange(
    deps.traces,
    { request, style: 'delete', model: name },
    () => deleteOnNode(deps, nodeId, name, notFound),
    () => ({ nodes: [nodeId] }),
  );
  await sendJson(response, { ok: true, node_id: nodeId, model: deleted });
}

/** Deletes the model on the node; answers the name the node held it under, or throws the refusal. */
async function deleteOnNode(deps: ModelAdminDeps, nodeId: string, name: string, notFound: string): Promise<string> {
  // The named node: 404 unknown, 503 offline or draining, 400 for a model only its sidecar serves.
  const [node] = adminTargets(await deps.registry.snapshot(), { name, nodeId, action: 'deleted', notFound });
  const keys = new Set(modelNameKeys(name));
  const held = node?.models.find((model) => keys.has(model.name));
  if (node === undefined || held === undefined) throw new NotFoundError(notFound, 'model_not_found');
  const answer = await callNodeAdmin(node, { method: 'DELETE', path: '/api/delete', body: { model: held.name } });
  const outcome = adminOutcome([answer], `deleting model '${held.name}'`);
  // The node no longer has it either way when it deleted it or said it had none: the record follows.
  if (outcome.kind === 'done' || outcome.kind === 'not-found') await forgetDeletedModel(deps.registry, [nodeId], name);
  switch (outcome.kind) {
    case 'done':
      return held.name;
    case 'not-found':
      throw new NotFoundError(notFound, 'model_not_found');
    case 'refused':
      throw new RouterError(outcome.status, outcome.message, { code: 'node_refused', retryable: false });
    case 'failed':
      throw new UpstreamError(outcome.message, answer.status === 0 ? undefined : answer.status, {
        code: 'delete_failed',
      });
  }
}
