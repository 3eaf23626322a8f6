/**
 * What the router sends to embed (ARCHITECTURE.md §8.3, §9.2): a node's Ollama gets `POST /api/embed` with the
 * client's body — every field it may understand (`dimensions`, `truncate`, `keep_alive`, `options` and
 * any newer one) — minus the router's own fields (`fallback_models`, `metadata`, `user`) and the fields
 * the route consumed itself (`encoding_format`, the legacy `prompt`), with the node's model name and the
 * truncated texts as `input`. A text-embedding sidecar gets `{model, input}` and nothing else: it knows
 * no other field. Pure.
 */

import { merged } from '../../merged';
import type { OllamaEmbedNodeRequest, SidecarEmbedRequest } from '../../wire/embeddings';

/** Never forwarded: the router's own fields, and what every route replaces or answers itself. */
const NOT_FORWARDED: ReadonlySet<string> = new Set([
  'fallback_models',
  'metadata',
  'user',
  'model',
  'input',
  'prompt',
  'encoding_format',
]);

/** The client's fields a node's Ollama may understand: a copy, the client's body is not changed. */
export function forwardedEmbedFields(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const forwarded: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (!NOT_FORWARDED.has(field) && value !== undefined) forwarded[field] = value;
  }
  return forwarded;
}

export function ollamaEmbedNodeRequest(
  forwarded: Readonly<Record<string, unknown>>,
  model: string,
  input: readonly string[],
): OllamaEmbedNodeRequest {
  return merged<OllamaEmbedNodeRequest>(forwarded, { model, input });
}

export function sidecarEmbedRequest(model: string, input: readonly string[]): SidecarEmbedRequest {
  return { model, input };
}
