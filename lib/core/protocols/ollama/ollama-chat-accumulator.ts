/**
 * A node's `/api/chat` stream → the one object a `stream: false` client gets (protocols §2.3): the final
 * line's fields and metrics, with `message` holding everything streamed — `content` and `thinking`
 * concatenated, every `tool_calls` entry in order — and the lines' `logprobs` joined. The reference
 * kept only the content (anchor §3.6); thinking and tool calls are kept here. The result is also what
 * `toOpenAIChatCompletion` and `diagnosticHeaders` read. Pure.
 */
import { UpstreamError } from '../../errors';
import { merged } from '../../merged';
import type { OllamaChatChunk, OllamaChatChunkMessage, OllamaChatChunkToolCall } from '../../wire/ollama';

export interface OllamaChatAccumulator {
  push(chunk: OllamaChatChunk): void;
  /** The whole reply; throws `UpstreamError` when the stream ended before its `done: true` line. */
  end(): OllamaChatChunk;
}

export function createOllamaChatAccumulator(): OllamaChatAccumulator {
  let content = '';
  let thinking = '';
  const toolCalls: OllamaChatChunkToolCall[] = [];
  const logprobs: unknown[] = [];
  let final: OllamaChatChunk | undefined;

  function push(chunk: OllamaChatChunk): void {
    if (final !== undefined) return;
    content += chunk.message?.content ?? '';
    thinking += chunk.message?.thinking ?? '';
    toolCalls.push(...(chunk.message?.tool_calls ?? []));
    logprobs.push(...(chunk.logprobs ?? []));
    if (chunk.done === true) final = chunk;
  }

  function end(): OllamaChatChunk {
    if (final === undefined) throw new UpstreamError('the node closed the stream before its final line');
    // merged(), not literals that start with a spread: every non-streaming answer is built here and
    // serialised at once, and those literals gave each answer a hidden class of its own (lib/core/merged.ts).
    const message = merged<OllamaChatChunkMessage>(final.message ?? undefined, {
      role: final.message?.role ?? 'assistant',
      content,
      ...(thinking === '' ? {} : { thinking }),
      ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
    });
    return merged<OllamaChatChunk>(final, { message }, logprobs.length === 0 ? undefined : { logprobs });
  }

  return { push, end };
}
