/**
 * The output budget of a thinking model (anchor §3.1, "thinking inflation"). Ollama counts thinking
 * tokens against `num_predict`, so a client's `max_tokens: 300` on a thinking model is often spent
 * entirely on thinking and the answer comes back empty with `done_reason: "length"`. The router raises
 * the budget so the answer keeps the client's whole allowance after a bounded amount of thinking:
 *
 *     num_predict = n + max(3 × n, 1024)        (n = the client's budget, n > 0)
 *
 * i.e. thinking may use up to three times the answer budget, and never less than 1,024 tokens. The
 * reference uses max(4 × n, 1024), which leaves small budgets (n = 200 → 1,024) with less room for the
 * answer than the client asked for once the model has thought for 1,024 tokens; this rule never does.
 * Applied only when the model has the `thinking` capability, thinking is not switched off, and n > 0
 * (0 and negative values — Ollama's "no limit" -1 — are passed through). `X-Budget-Used` reports the
 * raised value, the one the node enforced. Pure.
 */

/** Thinking may use this many times the client's answer budget… */
export const THINKING_ALLOWANCE_FACTOR = 3;
/** …and never less than this many tokens. */
export const THINKING_MIN_ALLOWANCE = 1024;

/** The `num_predict` to send for a thinking model given the client's budget `numPredict`. */
export function raiseThinkingBudget(numPredict: number): number {
  if (numPredict <= 0) return numPredict;
  return numPredict + Math.max(THINKING_ALLOWANCE_FACTOR * numPredict, THINKING_MIN_ALLOWANCE);
}

/**
 * The visible-answer budget the router must enforce itself: the client's `n` when the node was sent the
 * raised budget for it (`raiseThinkingBudget(n)`), so the node alone would let the answer run past `n`;
 * none when the node got the client's budget as it was (it stops there on its own, thinking included).
 */
export function visibleBudgetOf(clientBudget: unknown, sentNumPredict: unknown): number | undefined {
  if (typeof clientBudget !== 'number' || clientBudget <= 0) return undefined;
  const raised = raiseThinkingBudget(clientBudget);
  return sentNumPredict === raised && raised !== clientBudget ? clientBudget : undefined;
}
