/**
 * A node's 4xx to an embedding request, as the client's error with the node's status and words. Ollama
 * writes `{"error": "..."}` (handled by `nodeRefusal`); a text-embedding sidecar is a FastAPI server
 * and writes `{"detail": "..."}`, whose text is kept the same way instead of a bare "answered 400".
 */
import { type NodeAnswer, nodeRefusal } from '../dispatch/routed-call';
import { RouterError } from '../errors';
import { parseJson } from '../wire/json';

export function embeddingRefusal(answer: Pick<NodeAnswer, 'status' | 'body'>): RouterError {
  const parsed = parseJson(answer.body.toString('utf8'));
  const detail =
    parsed.ok && typeof parsed.value === 'object' && parsed.value !== null
      ? Reflect.get(parsed.value, 'detail')
      : undefined;
  if (typeof detail !== 'string') return nodeRefusal(answer);
  return new RouterError(answer.status, detail, { code: 'node_refused', retryable: false });
}
