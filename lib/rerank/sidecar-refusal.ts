/**
 * A sidecar's 4xx as the client's error (contract §3): the reference's sidecars are FastAPI servers and
 * refuse with `{"detail": "..."}`; anything else (`{"error": ...}`, the OpenAI envelope) is read by the
 * dispatcher's `nodeRefusal`. The node's status is kept: its 400 about a document is the client's 400.
 */
import type { NodeAnswer } from '../dispatch/routed-call';
import { nodeRefusal } from '../dispatch/routed-call';
import { RouterError } from '../errors';
import { parseJson } from '../wire/json';

export function sidecarRefusal(answer: Pick<NodeAnswer, 'status' | 'body'>): RouterError {
  const parsed = parseJson(answer.body.toString('utf8'));
  const detail =
    parsed.ok && typeof parsed.value === 'object' && parsed.value !== null
      ? Reflect.get(parsed.value, 'detail')
      : undefined;
  if (typeof detail === 'string' && detail !== '') {
    return new RouterError(answer.status, detail, { code: 'node_refused', retryable: false });
  }
  return nodeRefusal(answer);
}
