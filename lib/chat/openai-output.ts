/**
 * `/v1/chat/completions` replies (spec §4.2): streaming converts each node line into OpenAI chunks as it
 * comes and closes with `[DONE]`; non-streaming collects the lines and answers OpenAI's body with the
 * diagnostic headers. A failure after the first byte is an SSE `data: {"error": ...}` event.
 */
import { SSE_TYPE } from '../http/reply';
import type { DiagnosticRequestOptions } from '../protocols/diagnostic-headers';
import { chatDiagnosticHeaders } from '../protocols/diagnostic-headers';
import { createOllamaChatAccumulator } from '../protocols/ollama/ollama-chat-accumulator';
import { parseOllamaChatLine } from '../protocols/ollama/parse-ollama-line';
import { createOpenAIChatStreamConverter } from '../protocols/openai/openai-chat-stream-converter';
import { toOpenAIChatCompletion } from '../protocols/openai/to-openai-chat-completion';
import { encodeSseData, SSE_DONE } from '../stream/sse';
import type { OllamaChatChunk } from '../wire/ollama';
import type { ChatOutput } from './chat-output';
import { outcomeOf } from './ollama-output';

export interface OpenAIOutputContext {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly streaming: boolean;
  readonly includeUsage: boolean;
  readonly options: DiagnosticRequestOptions | null | undefined;
}

export function createOpenAIOutput(context: OpenAIOutputContext): ChatOutput<OllamaChatChunk> {
  const converter = createOpenAIChatStreamConverter(context);
  const accumulator = createOllamaChatAccumulator();
  let final: OllamaChatChunk | undefined;
  return {
    streaming: context.streaming,
    contentType: SSE_TYPE,
    parseLine: parseOllamaChatLine,
    push(chunk) {
      if (chunk.done === true) final ??= chunk;
      if (!context.streaming) {
        accumulator.push(chunk);
        return '';
      }
      return converter.push(chunk).map(encodeSseData).join('');
    },
    end() {
      if (context.streaming) return { body: `${converter.end().map(encodeSseData).join('')}${SSE_DONE}` };
      const whole = accumulator.end();
      const body = toOpenAIChatCompletion(whole, context);
      return { body: JSON.stringify(body), headers: chatDiagnosticHeaders(whole, context.options) };
    },
    fail: (error) => encodeSseData(context.streaming ? converter.fail(error) : { error: error.message }),
    outcome: () => outcomeOf(final),
  };
}
