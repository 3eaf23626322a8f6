/**
 * The node's counts → Anthropic `usage` (protocols §6.3; spec §4.1). Anthropic reports prompt tokens read
 * from the cache apart from the others (its total input is `input_tokens + cache_read_input_tokens`;
 * Claude Code sizes its context that way), so when the node measured prefix-cache reuse
 * (`prompt_cache_count`, part of `prompt_eval_count`, 0 included) `input_tokens` is the uncached rest and
 * `cache_read_input_tokens` the cached part; when it did not, `input_tokens` is `prompt_eval_count` and
 * `cache_read_input_tokens` is omitted, never 0. `output_tokens` is `eval_count`, thinking included, as
 * Anthropic counts it. Ollama leaves a zero count out (Go `omitempty`), so absent is 0. Nodes never report
 * cache writes, so `cache_creation_input_tokens` is never sent. Pure.
 */
import type { AnthropicUsage } from '../../wire/anthropic';
import type { OllamaChatChunk } from '../../wire/ollama';

type NodeCounts = Pick<OllamaChatChunk, 'prompt_eval_count' | 'eval_count' | 'prompt_cache_count'>;

export function toAnthropicUsage(final: NodeCounts): AnthropicUsage {
  const promptTokens = final.prompt_eval_count ?? 0;
  const outputTokens = final.eval_count ?? 0;
  const cached = final.prompt_cache_count;
  if (cached === undefined || cached === null) return { input_tokens: promptTokens, output_tokens: outputTokens };
  return {
    input_tokens: Math.max(0, promptTokens - cached),
    output_tokens: outputTokens,
    cache_read_input_tokens: cached,
  };
}
