/**
 * From the scores a node's reranker gives to `relevance_score` in 0..1 (spec §4.2: "the cross-encoder
 * logit passed through a sigmoid"). The rule, decided once here:
 *
 * - the node's scores are raw logits, and each gets the sigmoid — what the contract's sidecar and the
 *   reference's fastembed cross-encoder return, and what llama.cpp returns (protocols §7);
 * - except when the reply says `raw_scores: false` (TEI's and infinity's name for "already squashed")
 *   AND every score lies in [0, 1]: those are passed through unchanged. A node that says so but sends a
 *   score outside [0, 1] is not believed, and every score gets the sigmoid.
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
  if (rawScores !== false) return true;
  return scores.some((score) => score < 0 || score > 1);
}

/** The relevance score for one node score, once `scoresAreLogits` has decided for the whole reply. */
export function relevanceScore(score: number, logits: boolean): number {
  return logits ? sigmoid(score) : score;
}
