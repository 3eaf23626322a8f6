/**
 * The `/v1/rerank` response (spec §4.2): `{model, results, usage}`, results best first with their
 * original `index`, cut to `top_n` (more than there are = all), each with `document: {text}` only when
 * `return_documents` is true (the Jina/Cohere object form clients read `document.text` from). Pure.
 */
import type { RerankResponse, RerankResult, RerankUsage } from '../../wire/rerank';
import type { RankedDocument } from './rank-node-results';

export interface RerankResponseInput {
  /** The model that served, as the node names it. */
  readonly model: string;
  /** Every document, best first (`rankNodeResults`). */
  readonly ranked: readonly RankedDocument[];
  /** The documents' texts, by original index. */
  readonly texts: readonly string[];
  readonly topN: number | null | undefined;
  readonly returnDocuments: boolean;
  readonly usage: RerankUsage;
}

export function toRerankResponse(input: RerankResponseInput): RerankResponse {
  const kept = input.topN === undefined || input.topN === null ? input.ranked : input.ranked.slice(0, input.topN);
  const results = kept.map((ranked): RerankResult => {
    const result = { index: ranked.index, relevance_score: ranked.relevanceScore };
    const text = input.returnDocuments ? input.texts[ranked.index] : undefined;
    return text === undefined ? result : { ...result, document: { text } };
  });
  return { model: input.model, results, usage: input.usage };
}
