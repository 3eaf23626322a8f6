/**
 * Checks and orders a node's rerank results (protocols §7: "always re-order by index"). The router asks
 * for a score per document (it cuts to `top_n` itself), so a usable reply scores every document sent
 * exactly once: an index out of range, an index twice or a document left out is a node fault, 502.
 * Nothing is assumed about the order the node listed them in: they are sorted here, best first by the
 * node's own score (so squashing into 0..1 cannot tie what the node told apart), then by `index`. Pure.
 */
import { UpstreamError } from '../../errors';
import { relevanceScore, scoresAreLogits } from './relevance-scores';

export interface NodeRerankScore {
  readonly index: number;
  readonly relevance_score: number;
}

export interface RankedDocument {
  readonly index: number;
  /** In 0..1. */
  readonly relevanceScore: number;
}

function checkIndexes(results: readonly NodeRerankScore[], documentCount: number): void {
  const seen = new Set<number>();
  for (const { index } of results) {
    if (index < 0 || index >= documentCount) {
      throw new UpstreamError(`the node's rerank reply names document ${index}, but ${documentCount} were sent`);
    }
    if (seen.has(index)) throw new UpstreamError(`the node's rerank reply scores document ${index} twice`);
    seen.add(index);
  }
  if (seen.size !== documentCount) {
    throw new UpstreamError(`the node's rerank reply scores ${seen.size} of the ${documentCount} documents sent`);
  }
}

/** Every document, best first, with its score in 0..1; throws `UpstreamError` on a reply it cannot use. */
export function rankNodeResults(
  results: readonly NodeRerankScore[],
  documentCount: number,
  rawScores?: boolean | null,
): RankedDocument[] {
  checkIndexes(results, documentCount);
  const logits = scoresAreLogits(
    results.map((result) => result.relevance_score),
    rawScores,
  );
  return [...results]
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
    .map((result) => ({ index: result.index, relevanceScore: relevanceScore(result.relevance_score, logits) }));
}
