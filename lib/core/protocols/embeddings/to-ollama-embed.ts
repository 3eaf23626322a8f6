/**
 * The Ollama-style embedding replies (spec §4.4; protocols §2.6): `/api/embed` answers Ollama's own
 * shape `{model, embeddings, total_duration, load_duration, prompt_eval_count}` — the node's metrics when
 * it sent them, else the router's wall time, no load and the router's token count (a sidecar sends
 * none) — and the legacy `/api/embeddings` answers `{embedding}`, the one vector (`[]` for an empty
 * prompt, as Ollama does). Pure.
 */
import type { OllamaEmbedResponse, OllamaLegacyEmbeddingResponse } from '../../wire/embeddings';
import type { NodeEmbeddings } from './read-node-embeddings';

export interface OllamaEmbedContext {
  /** The model that served, as the node names it. */
  readonly model: string;
  /** From the request's arrival to the node's reply, ms. */
  readonly elapsedMs: number;
  /** The router's count of the (truncated) inputs, used when the node sent none. */
  readonly promptTokens: number;
}

export function toOllamaEmbed(reply: NodeEmbeddings, context: OllamaEmbedContext): OllamaEmbedResponse {
  return {
    model: context.model,
    embeddings: reply.embeddings,
    total_duration: reply.totalDuration ?? Math.round(context.elapsedMs * 1_000_000),
    load_duration: reply.loadDuration ?? 0,
    prompt_eval_count: reply.promptEvalCount ?? context.promptTokens,
  };
}

export function toOllamaLegacyEmbedding(reply: NodeEmbeddings): OllamaLegacyEmbeddingResponse {
  return { embedding: reply.embeddings[0] ?? [] };
}
