/**
 * A node's `/api/chat` stream → OpenAI `chat.completion.chunk`s (protocols §2.3 → §3.3). A synchronous
 * state machine: `push` one parsed node line, get the chunks to write (each encoded with
 * `encodeSseData`); after the last, the caller writes `SSE_DONE`.
 * - Every chunk carries the same `id`, `created` and `model` (given, not made here).
 * - The first chunk is `delta: {role: "assistant", content: ""}`; no later delta has a role.
 * - Thinking is streamed as `delta.reasoning_content` (the field `toOpenAIChatCompletion` uses), text as
 *   `delta.content`; a node line with neither (and no tool call) writes nothing.
 * - Ollama sends each tool call whole, so each becomes one delta with `index` (counted over the reply),
 *   `id`, `type: "function"`, `name` and the full `arguments` string — what openai-node's stream helper
 *   needs on a call's first fragment.
 * - The node's `done: true` line gives exactly one `finish_reason` chunk (`tool_calls` when any call was
 *   streamed, else `length`/`stop`) and, with `includeUsage`, a `choices: []` usage chunk; every other
 *   chunk then carries `usage: null`, as OpenAI's do.
 * - `end()` after the node's stream closed without `done: true` throws an `UpstreamError`, and `fail()`
 *   gives the in-band error body (ARCHITECTURE.md §9.4): the caller writes it instead of `SSE_DONE`, so a cut
 *   stream never looks complete. After `done` or `fail`, further lines are ignored.
 * Pure.
 */
import { type RouterError, UpstreamError } from '../../errors';
import { errorBody } from '../../wire/error-body';
import type { OllamaChatChunk } from '../../wire/ollama';
import {
  type OpenAIChatChunk,
  type OpenAIChatChunkChoice,
  type OpenAIChatDelta,
  type OpenAIFinishReason,
  type OpenAILogprobs,
  type OpenAIStreamError,
  type OpenAIUsage,
  openAIErrorBodySchema,
} from '../../wire/openai';
import { mapOllamaDoneReason } from './map-ollama-done-reason';
import type { OpenAIChatContext } from './to-openai-chat-completion';
import { toOpenAILogprobs } from './to-openai-logprobs';
import { toOpenAIToolCall } from './to-openai-tool-call';
import { toOpenAIUsage } from './to-openai-usage';

export interface OpenAIChatStreamContext extends OpenAIChatContext {
  /** The client's `stream_options.include_usage`. */
  readonly includeUsage: boolean;
}

export interface OpenAIChatStreamConverter {
  push(chunk: OllamaChatChunk): OpenAIChatChunk[];
  /** Throws `UpstreamError` when the node's stream ended before its `done: true` line. */
  end(): OpenAIChatChunk[];
  fail(error: RouterError): OpenAIStreamError;
}

/** @see protocols.md §3.3 */
export function createOpenAIChatStreamConverter(context: OpenAIChatStreamContext): OpenAIChatStreamConverter {
  const { id, created, model, includeUsage } = context;
  let state: 'open' | 'done' | 'failed' = 'open';
  let started = false;
  let toolCalls = 0;

  function chunk(choices: readonly OpenAIChatChunkChoice[], usage: OpenAIUsage | null = null): OpenAIChatChunk {
    return { id, object: 'chat.completion.chunk', created, model, choices, ...(includeUsage ? { usage } : {}) };
  }

  function choice(
    delta: OpenAIChatDelta,
    finishReason: OpenAIFinishReason | null,
    logprobs: OpenAILogprobs | null = null,
  ): OpenAIChatChunkChoice {
    return { index: 0, delta, logprobs, finish_reason: finishReason };
  }

  function deltaOf(line: OllamaChatChunk): OpenAIChatDelta | undefined {
    const message = line.message;
    const thinking = message?.thinking ?? '';
    const content = message?.content ?? '';
    const calls = (message?.tool_calls ?? []).map((call) => {
      const index = toolCalls;
      toolCalls += 1;
      return { index, ...toOpenAIToolCall(call, id, index) };
    });
    if (thinking === '' && content === '' && calls.length === 0) return undefined;
    return {
      ...(thinking === '' ? {} : { reasoning_content: thinking }),
      ...(content === '' ? {} : { content }),
      ...(calls.length === 0 ? {} : { tool_calls: calls }),
    };
  }

  function push(line: OllamaChatChunk): OpenAIChatChunk[] {
    if (state !== 'open') return [];
    const out: OpenAIChatChunk[] = [];
    if (!started) {
      started = true;
      out.push(chunk([choice({ role: 'assistant', content: '' }, null)]));
    }
    const delta = deltaOf(line);
    const logprobs = toOpenAILogprobs(line.logprobs);
    if (delta !== undefined || logprobs !== null) out.push(chunk([choice(delta ?? {}, null, logprobs)]));
    if (line.done === true) {
      state = 'done';
      out.push(chunk([choice({}, mapOllamaDoneReason(line.done_reason, { calledTools: toolCalls > 0 }))]));
      if (includeUsage) out.push(chunk([], toOpenAIUsage(line)));
    }
    return out;
  }

  function end(): OpenAIChatChunk[] {
    if (state === 'open') throw new UpstreamError('the node closed the stream before its final line');
    return [];
  }

  function fail(error: RouterError): OpenAIStreamError {
    state = 'failed';
    // The same body `renderError` sends before the first byte; parsed to its type, not cast.
    return openAIErrorBodySchema.parse(errorBody('openai', error));
  }

  return { push, end, fail };
}
