/**
 * `POST /api/copy` for the fleet (issue 20 item 11; Ollama's `CopyRequest` `{source, destination}`, plus
 * the router's `node_id`): relayed to the named node, else to every node that holds the source — a copy
 * is a new name over the same blobs, cheap on each node, and the new name is then served wherever the
 * source is, as a user of one Ollama expects. Answers as Ollama does (200 empty; 404 `model "<source>" not
 * found`) or names the nodes where it failed; the copies are recorded on those nodes at once, and the
 * copy is traced with the key that asked for it (issue 46).
 */
import { BadRequestError } from '../../core/errors';
import { copyRequestSchema } from '../../core/wire/model-admin';
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
import { recordCopiedModel } from './update-registry';

export async function serveCopy(deps: ModelAdminDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const body = readJsonBody(request, copyRequestSchema);
  const source = firstNonBlank(body.source);
  if (source === undefined) throw new BadRequestError('source is required', 'source');
  const destination = firstNonBlank(body.destination);
  if (destination === undefined) throw new BadRequestError('destination is required', 'destination');
  // Ollama's own words for a missing source (it quotes with %q here).
  const notFound = `model ${JSON.stringify(source)} not found`;
  const outcome = await tracedChange(
    deps.traces,
    { request, style: 'copy', model: source },
    async () => {
      const targets = adminTargets(await deps.registry.snapshot(), {
        name: source,
        nodeId: firstNonBlank(body.node_id),
        action: 'copied',
        notFound,
      });
      const answers = await Promise.all(
        targets.map((node) =>
          callNodeAdmin(node, {
            method: 'POST',
            path: '/api/copy',
            body: { source: nameOnNode(node, source), destination },
          }),
        ),
      );
      const result = adminOutcome(answers, `copying model '${source}' to '${destination}'`);
      const copied = result.kind === 'done' ? result.nodes : result.kind === 'failed' ? result.succeeded : [];
      await recordCopiedModel(deps.registry, copied, source, destination, Date.now());
      return result;
    },
    (result) => changeOutcomeOf(result, notFound),
  );
  await sendAdminOutcome(response, outcome, notFound);
}
