/**
 * What a model-admin call across nodes answers (issue 20 item 11), from each node's answer: done when
 * every node that had the model did it (a node answering 404 no longer had it: its record was a
 * heartbeat behind); 404 when none had it; the node's own refusal when every node refused alike with a
 * 4xx; otherwise 502 naming, by id, the nodes where it failed and why, and those where it was done. Pure.
 */
import type { ChangeOutcome } from '../../services/analytics/change-trace';
import type { NodeAdminAnswer } from './call-node-admin';

export type AdminOutcome =
  | { readonly kind: 'done'; readonly nodes: readonly string[] }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'refused'; readonly status: number; readonly message: string }
  | {
      readonly kind: 'failed';
      readonly message: string;
      readonly succeeded: readonly string[];
      readonly failed: readonly string[];
    };

const ok = (answer: NodeAdminAnswer) => answer.status >= 200 && answer.status < 300;

function reason(answer: NodeAdminAnswer): string {
  const words = answer.message ?? 'no reason given';
  return answer.status === 0 ? `${answer.nodeId} (${words})` : `${answer.nodeId} (${answer.status}: ${words})`;
}

/** `what` names the act for messages: `deleting model 'x'`. */
export function adminOutcome(answers: readonly NodeAdminAnswer[], what: string): AdminOutcome {
  const succeeded = answers.filter(ok).map((answer) => answer.nodeId);
  const failures = answers.filter((answer) => !ok(answer) && answer.status !== 404);
  if (failures.length === 0) return succeeded.length > 0 ? { kind: 'done', nodes: succeeded } : { kind: 'not-found' };
  const [first] = failures;
  const alike = failures.every((answer) => answer.status === first?.status && answer.message === first.message);
  if (first !== undefined && succeeded.length === 0 && alike && first.status >= 400 && first.status < 500) {
    return { kind: 'refused', status: first.status, message: first.message ?? `the node answered ${first.status}` };
  }
  const done = succeeded.length > 0 ? `; done on ${succeeded.join(', ')}` : '';
  return {
    kind: 'failed',
    message: `${what} failed on ${failures.map(reason).join(', ')}${done}`,
    succeeded,
    failed: failures.map((answer) => answer.nodeId),
  };
}

/** What the change's trace keeps of an outcome (issue 46): the nodes where it was done, and why it failed. */
export function changeOutcomeOf(outcome: AdminOutcome, notFound: string): ChangeOutcome {
  switch (outcome.kind) {
    case 'done':
      return { nodes: outcome.nodes };
    case 'not-found':
      return { error: notFound };
    case 'refused':
      return { error: outcome.message };
    case 'failed':
      return { nodes: outcome.succeeded, error: outcome.message };
  }
}
