/**
 * `usage` of a rerank response (spec §4.2): the node's count when its reply has one, else the router's
 * cl100k count (`lib/core/tokens`) of what a cross-encoder reads — the query once per document, paired with
 * that document — as llama.cpp and vLLM count it. Nothing is generated, so `total_tokens` equals
 * `prompt_tokens`. Pure (the tokenizer loads on the first count).
 */
import { countTokens } from '../../tokens/count-tokens';
import type { RerankUsage, SidecarRerankReply } from '../../wire/rerank';

/** Tokens of every (query, document) pair the reranker scores. */
export function countRerankTokens(query: string, documents: readonly string[]): RerankUsage {
  let tokens = countTokens(query) * documents.length;
  for (const document of documents) tokens += countTokens(document);
  return { prompt_tokens: tokens, total_tokens: tokens };
}

/** The node's own usage when it reported one, else `count()`. */
export function rerankUsage(reported: SidecarRerankReply['usage'], count: () => RerankUsage): RerankUsage {
  const total = reported?.total_tokens ?? reported?.prompt_tokens;
  if (total === undefined || total === null) return count();
  return { prompt_tokens: reported?.prompt_tokens ?? total, total_tokens: total };
}
