/**
 * From the scores a node's reranker gives to `relevance_score` in 0..1 (spec §2 "Rerank result", §4.2).
 * The rule, decided once here:
 *
 * - the node's scores are probabilities, passed through unchanged: a node agent's text-embedding sidecar
 *   (ARCHITECTURE.md §8.3) runs the cross-encoder, puts each logit through the sigmoid itself and answers scores in
 *   (0, 1) (anchor §12). Squashing them again would crowd every score into 0.5–0.73 and break clients
 *   that filter on a relevance threshold (Open WebUI does);
 * - except when the backend is known to send logits: the reply says `raw_scores: true` (TEI's and
 *   infinity's name for the switch), or a score lies outside [0, 1], which no probability does (llama.cpp
 *   sends raw, often negative, scores). Then every score of the reply gets the sigmoid, so one reply is
 *   never half squashed. A logit-sending backend whose scores all happen to fall inside [0, 1] cannot be
 *   told apart from probabilities: it must say `raw_scores: true`.
 *
 * Both branches are monotonic, so the node's order is kept; ties that the sigmoid creates at the
 * extremes (logits of 40 and 50 both give 1) are broken by the logits, see `rank-node-results`. Pure.
 */

/** The logistic function, written so neither branch overflows (`exp` of a large positive number). */
export function sigmoid(logit: number): number {
  if (logit >= 0) return 1 / (1 + Math.exp(-logit));
  const e = Math.exp(logit);
  return e / (1 + e);
}

/** True when the scores are to be read as logits (see the rule above). */
export function scoresAreLogits(scores: readonly number[], rawScores: boolean | null | undefined): boolean {
  if (rawScores === true) return true;
  return scores.some((score) => score < 0 || score > 1);
}

/** The relevance score for one node score, once `scoresAreLogits` has decided for the whole reply. */
export function relevanceScore(score: number, logits: boolean): number {
  return logits ? sigmoid(score) : score;
}
