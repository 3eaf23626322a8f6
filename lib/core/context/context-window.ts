/**
 * The numbers of context protection (issue 20 item 10; anchor §2.3 signal 7 `context_fit`, §3.5 "context
 * protection"): how much context a chat request needs, the `num_ctx` the router asks a node for when the
 * model's loaded window is too small, and when a prompt is so far over a model's own maximum that the
 * request is refused rather than cut by the node. Pure.
 *
 * - Need = the prompt estimate plus an answer reserve: the request's `num_predict` (what the client's
 *   `max_tokens` became, thinking raise included), `DEFAULT_ANSWER_TOKENS` when it sets none (or -1/-2),
 *   and never more than `MAX_ANSWER_RESERVE`. Budgets are ceilings clients set high (Claude Code 32,000,
 *   the AI SDK 64,000, a thinking model's raise), not lengths answers reach: reserving all of it would
 *   load models with contexts their memory may not hold.
 * - A model that is not loaded, or loaded with a context the node does not report, is taken to load with
 *   `RUNTIME_DEFAULT_CONTEXT` (Ollama's default `num_ctx` with `OLLAMA_CONTEXT_LENGTH` unset).
 * - The size asked for is the next power of two at or above the need (at least 2,048), never above the
 *   model's own maximum (`<arch>.context_length` of `/api/show`): few distinct sizes, so requests of
 *   similar length ask for the same size and Ollama does not reload between them.
 * - Refusal: the estimate is not the model's tokenizer. On this repository's sources and docs, chars/4
 *   (the routing estimate) was 0.78–1.21× the cl100k count, and model tokenizers differ from cl100k by
 *   up to about a fifth: 1.21 × 1.2 ≈ 1.45. Only a prompt estimated over `REFUSAL_MARGIN` (1.5) times
 *   the model's maximum is refused; between the maximum and that, the request goes with the maximum and
 *   the overflow is reported (`x-fleet-context-overflow`).
 */

export const RUNTIME_DEFAULT_CONTEXT = 4096;
export const DEFAULT_ANSWER_TOKENS = 2048;
export const MAX_ANSWER_RESERVE = 8192;
export const MIN_CONTEXT_SIZE = 2048;
export const REFUSAL_MARGIN = 1.5;

/** Tokens kept free for the answer, from the request's `num_predict` (absent, 0 or negative: the default). */
export function answerReserve(numPredict: number | null | undefined): number {
  if (numPredict === undefined || numPredict === null || numPredict <= 0) return DEFAULT_ANSWER_TOKENS;
  return Math.min(numPredict, MAX_ANSWER_RESERVE);
}

/** The context a request needs: its prompt estimate and the answer reserve. */
export function contextNeed(promptTokens: number, numPredict: number | null | undefined): number {
  return promptTokens + answerReserve(numPredict);
}

/** The `num_ctx` to ask for: the next power of two at or above `need`, at most `modelMax` when known. */
export function contextSize(need: number, modelMax: number | undefined): number {
  let size = MIN_CONTEXT_SIZE;
  while (size < need) size *= 2;
  return modelMax !== undefined && modelMax > 0 ? Math.min(size, modelMax) : size;
}

/** The prompt estimate is so far over the model's own maximum that no context could hold the prompt. */
export function clearlyTooLong(promptTokens: number, modelMax: number | undefined): boolean {
  return modelMax !== undefined && modelMax > 0 && promptTokens > modelMax * REFUSAL_MARGIN;
}
