/**
 * Ollama `done_reason` → OpenAI `finish_reason` (protocols §2.3 → §3.2–3.3). A reply that called tools
 * finishes with `tool_calls` whatever the node says (Ollama keeps `stop` there, and OpenAI clients only
 * look for the calls when they see `tool_calls`); a budget cut is `length`; everything else — `stop`,
 * the no-generation `load`/`unload`, an absent or unknown reason — is `stop`, the only other value
 * OpenAI's closed set offers for a reply that ended normally. Pure.
 */
import type { OpenAIFinishReason } from '../../wire/openai';

/** @see protocols.md §3.3 (finish_reason), §2.3 (done_reason values) */
export function mapOllamaDoneReason(
  doneReason: string | null | undefined,
  options: { readonly calledTools: boolean },
): OpenAIFinishReason {
  if (options.calledTools) return 'tool_calls';
  switch (doneReason) {
    case 'length':
      return 'length';
    default:
      return 'stop';
  }
}
