/**
 * Ollama `logprobs` (per token: `token`, `logprob`, `bytes`, `top_logprobs`) → OpenAI's
 * `choices[].logprobs` (`{content: [...]}`, the same entries). `null` when the node sent none, which is
 * what OpenAI sends when `logprobs` was not asked for (protocols §3.2). Pure.
 */
import type { OpenAILogprobs } from '../../wire/openai';

export function toOpenAILogprobs(logprobs: readonly unknown[] | null | undefined): OpenAILogprobs | null {
  return logprobs === undefined || logprobs === null ? null : { content: logprobs };
}
