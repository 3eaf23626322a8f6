/**
 * `/v1/chat/completions` replies (spec §4.2): streaming converts each node line into OpenAI chunks as it
 * comes and closes with `[DONE]`; non-streaming collects the lines and answers OpenAI's body with the
 * diagnostic headers. A failure after the first byte is an SSE `data: {"error": ...}` event.
 */
import type { DiagnosticRequestOptions } from '../../core/protocols/diagnostic-headers';
import { createOpenAIChatStreamConverter } from '../../core/protocols/openai/openai-chat-stream-converter';
import { toOpenAIChatCompletion } from '../../core/protocols/openai/to-openai-chat-completion';
import type { VisibleBudgetOptions } from '../../core/protocols/visible-budget';
import { encodeSseData, SSE_DONE } from '../../core/stream/sse';
import type { OllamaChatChunk } from '../../core/wire/ollama';
import type { ChatOutput } from './chat-output';
import { createConvertedOutput } from './converted-output';

export interface OpenAIOutputContext {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly streaming: boolean;
  readonly includeUsage: boolean;
  readonly options: DiagnosticRequestOptions | null | undefined;
  /** The client's visible budget when the router raised the node's for thinking (`visibleBudgetOf`). */
  readonly visibleBudget?: VisibleBudgetOptions | undefined;
}

export function createOpenAIOutput(context: OpenAIOutputContext): ChatOutput<OllamaChatChunk> {
  const converter = createOpenAIChatStreamConverter(context);
  return createConvertedOutput({
    streaming: context.streaming,
    options: context.options,
    visibleBudget: context.visibleBudget,
    convert: (chunk) => converter.push(chunk).map(encodeSseData).join(''),
    close: () => `${converter.end().map(encodeSseData).join('')}${SSE_DONE}`,
    render: (whole) => toOpenAIChatCompletion(whole, context),
    fail: (error) => encodeSseData(context.streaming ? converter.fail(error) : { error: error.message }),
  });
}
