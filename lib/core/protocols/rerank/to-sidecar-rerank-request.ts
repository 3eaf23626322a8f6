/**
 * The body of `POST <text-embedding sidecar>/rerank` (ARCHITECTURE.md §8.3) from a validated client request:
 * `{model, query, documents: string[]}` plus the fields the router does not handle itself, forwarded
 * for a node that understands them (ARCHITECTURE.md §9.2). Withheld: the router's own fields, `top_n` and
 * `return_documents` (the router asks for every score and cuts and decorates itself, so it can check
 * the node scored each document), and `raw_scores` (the router alone decides how scores become 0..1,
 * see `relevance-scores`). Pure.
 */

import { merged } from '../../merged';
import type { RerankRequest, SidecarRerankRequest } from '../../wire/rerank';

const WITHHELD: ReadonlySet<string> = new Set([
  'model',
  'query',
  'documents',
  'top_n',
  'return_documents',
  'raw_scores',
  'fallback_models',
  'metadata',
  'user',
]);

export function toSidecarRerankRequest(
  request: RerankRequest,
  model: string,
  documents: readonly string[],
): SidecarRerankRequest {
  const forwarded = Object.fromEntries(Object.entries(request).filter(([field]) => !WITHHELD.has(field)));
  return merged<SidecarRerankRequest>(forwarded, { model, query: request.query, documents });
}
