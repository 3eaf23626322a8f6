/**
 * Diagnostic headers of a non-streaming chat or generate reply (spec §4.2; anchor §3.4). They need the
 * node's final counts, so they exist only when the whole reply is in hand before the first byte; a
 * streamed reply has sent its headers long before. Formats (all values ASCII):
 *
 * | header                      | value                                    | sent when                            |
 * |-----------------------------|------------------------------------------|--------------------------------------|
 * | `x-thinking-tokens`         | integer, estimated (below)               | always (0 = the reply had no thinking) |
 * | `x-output-tokens`           | integer, `eval_count` − thinking tokens  | always                               |
 * | `x-budget-used`             | `<eval_count>/<num_predict>`, e.g. `412/1324` | a positive `num_predict` was sent |
 * | `x-done-reason`             | the node's `done_reason` as it came (`stop`, `length`, `load`, `unload`) | the node sent one, a plain word |
 * | `x-fleet-context-overflow`  | `estimated_tokens=<N>; context_length=<M>` | the prompt estimate exceeds the context the model runs with (lib/features/chat/attempt-context) |
 *
 * Ollama reports one output count, `eval_count`, thinking included (absent = 0, Go `omitempty`). It is
 * split in proportion to the characters of thinking and of visible output (content plus tool-call
 * arguments): thinking = round(eval_count × thinking chars / all chars), output = the rest, so the two
 * always add up to `eval_count`. `num_predict` is the value sent to the node, after any thinking raise
 * (`thinking-budget.ts`), so `x-budget-used` compares what was spent with what the node enforced.
 * Pure.
 */
import type { OllamaChatChunk, OllamaGenerateChunk } from '../wire/ollama';

export const THINKING_TOKENS_HEADER = 'x-thinking-tokens';
export const OUTPUT_TOKENS_HEADER = 'x-output-tokens';
export const BUDGET_USED_HEADER = 'x-budget-used';
export const DONE_REASON_HEADER = 'x-done-reason';
export const CONTEXT_OVERFLOW_HEADER = 'x-fleet-context-overflow';

/** A node's `done_reason` goes into a header only as a plain word: a line break in it would split the header. */
const HEADER_TOKEN = /^[A-Za-z0-9_.-]+$/;

/** The options sent to the node (only `num_predict` is read). */
export interface DiagnosticRequestOptions {
  readonly num_predict?: number | null | undefined;
}

/** `x-thinking-tokens`, `x-output-tokens`, `x-budget-used`, `x-done-reason` of a whole `/api/chat` reply. */
export function chatDiagnosticHeaders(
  final: OllamaChatChunk,
  options: DiagnosticRequestOptions | null | undefined,
): Record<string, string> {
  const message = final.message;
  const callsLength = (message?.tool_calls ?? []).reduce(
    (sum, call) => sum + argumentsLength(call.function.arguments),
    0,
  );
  const lengths = { thinking: message?.thinking?.length ?? 0, output: (message?.content?.length ?? 0) + callsLength };
  return headersFor(final, lengths, options);
}

/** The same headers for a whole `/api/generate` reply. */
export function generateDiagnosticHeaders(
  final: OllamaGenerateChunk,
  options: DiagnosticRequestOptions | null | undefined,
): Record<string, string> {
  const lengths = { thinking: final.thinking?.length ?? 0, output: final.response?.length ?? 0 };
  return headersFor(final, lengths, options);
}

/**
 * The `x-fleet-context-overflow` value when the prompt (the router's estimate, in tokens) is larger
 * than the context the node runs the model with (after any `num_ctx` the router set); `undefined` when it fits.
 */
export function contextOverflow(promptTokens: number, loadedContext: number): string | undefined {
  if (promptTokens <= loadedContext) return undefined;
  return `estimated_tokens=${promptTokens}; context_length=${loadedContext}`;
}

interface NodeCounts {
  readonly eval_count?: number | null | undefined;
  readonly done_reason?: string | null | undefined;
}

/** @see fleet-router-http.md §4.2 (response headers) */
function headersFor(
  final: NodeCounts,
  lengths: { readonly thinking: number; readonly output: number },
  options: DiagnosticRequestOptions | null | undefined,
): Record<string, string> {
  const evalCount = final.eval_count ?? 0;
  const all = lengths.thinking + lengths.output;
  const thinkingTokens = all === 0 ? 0 : Math.round((evalCount * lengths.thinking) / all);
  const headers: Record<string, string> = {
    [THINKING_TOKENS_HEADER]: String(thinkingTokens),
    [OUTPUT_TOKENS_HEADER]: String(evalCount - thinkingTokens),
  };
  const budget = options?.num_predict;
  if (budget !== undefined && budget !== null && budget > 0) headers[BUDGET_USED_HEADER] = `${evalCount}/${budget}`;
  const doneReason = final.done_reason;
  if (doneReason !== undefined && doneReason !== null && HEADER_TOKEN.test(doneReason)) {
    headers[DONE_REASON_HEADER] = doneReason;
  }
  return headers;
}

function argumentsLength(args: unknown): number {
  return typeof args === 'string' ? args.length : JSON.stringify(args ?? {}).length;
}
