/**
 * Answers a model-admin call as Ollama does (issue 20 item 11): 200 with an empty body when it was done
 * (`X-Fleet-Nodes` lists the nodes, by id); 404 `{"error": notFound}`; a refusal every node gave alike,
 * as the node gave it; otherwise 502 `{"error", "succeeded_nodes", "failed_nodes"}` — Ollama's error shape,
 * with the node ids a fleet tool needs to retry only where it failed.
 */
import { NotFoundError, RouterError } from '../../core/errors';
import { sendJson } from '../../services/http/reply';
import type { ResponseSink } from '../../services/http/response-sink';
import type { AdminOutcome } from './admin-outcome';

export async function sendAdminOutcome(response: ResponseSink, outcome: AdminOutcome, notFound: string): Promise<void> {
  switch (outcome.kind) {
    case 'done':
      response.start({ statusCode: 200, headers: { 'x-fleet-nodes': outcome.nodes.join(',') } });
      await response.end();
      return;
    case 'not-found':
      throw new NotFoundError(notFound, 'model_not_found');
    case 'refused':
      throw new RouterError(outcome.status, outcome.message, { code: 'node_refused', retryable: false });
    case 'failed':
      await sendJson(
        response,
        { error: outcome.message, succeeded_nodes: outcome.succeeded, failed_nodes: outcome.failed },
        502,
      );
      return;
  }
}
