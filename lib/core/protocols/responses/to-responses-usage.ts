/**
 * The node's counts → Responses `usage` (protocols §4.2; spec §4.1). `input_tokens` and `output_tokens`
 * are the node's `prompt_eval_count` and `eval_count` (thinking included, as OpenAI counts reasoning);
 * Ollama leaves a zero count out (Go `omitempty`), so absent is 0.
 * - `input_tokens_details.cached_tokens` appears only when the node measured prefix-cache reuse
 *   (`prompt_cache_count`, 0 included); otherwise the whole `input_tokens_details` is left out — never
 *   `{cached_tokens: 0}`, and never `{}` (Codex reads `cached_tokens` as a required number there).
 * - `output_tokens_details.reasoning_tokens` is the estimate `x-thinking-tokens` reports
 *   (`diagnostic-headers.ts`): Ollama counts thinking and answer together, so `eval_count` is split in
 *   proportion to the characters of thinking and of visible output (text plus call arguments); 0 when
 *   the reply had no thinking.
 * Pure.
 */
import type { OllamaChatChunk } from '../../wire/ollama';
import type { ResponsesUsage } from '../../wire/responses';

type NodeCounts = Pick<OllamaChatChunk, 'prompt_eval_count' | 'eval_count' | 'prompt_cache_count'>;

/** Characters of thinking and of visible output (text plus call arguments) in the reply. */
export interface ReplyLengths {
  readonly thinking: number;
  readonly output: number;
}

export function toResponsesUsage(final: NodeCounts, lengths: ReplyLengths): ResponsesUsage {
  const inputTokens = final.prompt_eval_count ?? 0;
  const outputTokens = final.eval_count ?? 0;
  const cached = final.prompt_cache_count;
  const all = lengths.thinking + lengths.output;
  const reasoningTokens = all === 0 ? 0 : Math.round((outputTokens * lengths.thinking) / all);
  return {
    input_tokens: inputTokens,
    ...(cached === undefined || cached === null ? {} : { input_tokens_details: { cached_tokens: cached } }),
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + outputTokens,
  };
}
