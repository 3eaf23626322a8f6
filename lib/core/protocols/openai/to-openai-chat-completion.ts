/**
 * The node's whole chat reply → an OpenAI `chat.completion` body (protocols §2.3 → §3.2). The reply is
 * the node's `stream: false` object or the streamed lines accumulated into one
 * (`createOllamaChatAccumulator`); both have the final line's metrics. Id, clock and model name come in
 * as parameters, so the same reply always gives the same body.
 * - `content`: the text; `null` when the reply is only tool calls (as OpenAI sends it).
 * - `reasoning_content`: the model's thinking, only when there was some. Non-standard; chosen over
 *   Ollama's own `reasoning` because it is what DeepSeek, vLLM and llama.cpp send and what most
 *   OpenAI-compatible clients (Open WebUI, LibreChat, LiteLLM, Continue) read.
 * - `tool_calls`: `id`, `type: "function"`, `arguments` as a JSON string; `finish_reason` from
 *   `mapOllamaDoneReason`; `usage` from `toOpenAIUsage` (cached tokens only when measured).
 * Pure.
 */
import type { OllamaChatChunk } from '../../wire/ollama';
import type { OpenAIChatCompletion, OpenAIChatCompletionMessage } from '../../wire/openai';
import { mapOllamaDoneReason } from './map-ollama-done-reason';
import { toOpenAILogprobs } from './to-openai-logprobs';
import { toOpenAIToolCall } from './to-openai-tool-call';
import { toOpenAIUsage } from './to-openai-usage';

export interface OpenAIChatContext {
  /** `chatcmpl-…`, made by the caller. */
  readonly id: string;
  /** Unix seconds, read by the caller. */
  readonly created: number;
  /** The model name to report (the one that served the request). */
  readonly model: string;
}

/** @see protocols.md §3.2 */
export function toOpenAIChatCompletion(response: OllamaChatChunk, context: OpenAIChatContext): OpenAIChatCompletion {
  const toolCalls = (response.message?.tool_calls ?? []).map((call, index) =>
    toOpenAIToolCall(call, context.id, index),
  );
  const content = response.message?.content ?? '';
  const thinking = response.message?.thinking ?? '';
  const message: OpenAIChatCompletionMessage = {
    role: 'assistant',
    content: toolCalls.length > 0 && content === '' ? null : content,
    refusal: null,
    ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
    ...(thinking === '' ? {} : { reasoning_content: thinking }),
  };
  return {
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: context.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: toOpenAILogprobs(response.logprobs),
        finish_reason: mapOllamaDoneReason(response.done_reason, { calledTools: toolCalls.length > 0 }),
      },
    ],
    usage: toOpenAIUsage(response),
  };
}
