/**
 * The node's counts → OpenAI `usage` (protocols §3.2; spec §4.1). `prompt_tokens` and
 * `completion_tokens` are the node's `prompt_eval_count` and `eval_count` (thinking included, as
 * OpenAI counts reasoning tokens); Ollama leaves a zero count out (Go `omitempty`), so absent is 0.
 * `prompt_tokens_details.cached_tokens` appears only when the node measured prefix-cache reuse
 * (`prompt_cache_count`, 0 included) and is omitted — never 0 — otherwise. Pure.
 */
import type { OllamaChatChunk } from '../../wire/ollama';
import type { OpenAIUsage } from '../../wire/openai';

type NodeCounts = Pick<OllamaChatChunk, 'prompt_eval_count' | 'eval_count' | 'prompt_cache_count'>;

export function toOpenAIUsage(final: NodeCounts): OpenAIUsage {
  const promptTokens = final.prompt_eval_count ?? 0;
  const completionTokens = final.eval_count ?? 0;
  const cached = final.prompt_cache_count;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    ...(cached === undefined || cached === null ? {} : { prompt_tokens_details: { cached_tokens: cached } }),
  };
}
