/**
 * `/v1/responses` replies (spec §4.2; protocols §4.2–4.3): streaming converts each node line into the
 * Responses events as it comes (`response.created` … `response.completed`, rising `sequence_number`,
 * no `[DONE]`); non-streaming collects the lines and answers the response object with the diagnostic
 * headers. A failure after the first byte is the converter's `error` event followed by
 * `response.failed`, which openai-node throws.
 */
import type { DiagnosticRequestOptions } from '../../core/protocols/diagnostic-headers';
import { encodeResponsesEvent } from '../../core/protocols/responses/encode-responses-event';
import type { ResponsesContext } from '../../core/protocols/responses/responses-envelope';
import { createResponsesStreamConverter } from '../../core/protocols/responses/responses-stream-converter';
import type { ResponsesStreamEvent } from '../../core/protocols/responses/responses-stream-event';
import { toResponsesResponse } from '../../core/protocols/responses/to-responses-response';
import type { VisibleBudgetOptions } from '../../core/protocols/visible-budget';
import type { OllamaChatChunk } from '../../core/wire/ollama';
import type { ChatOutput } from './chat-output';
import { createConvertedOutput } from './converted-output';

export interface ResponsesOutputContext extends ResponsesContext {
  readonly streaming: boolean;
  /** The options sent to the node, for the diagnostic headers. */
  readonly options: DiagnosticRequestOptions | null | undefined;
  /** The client's visible budget when the router raised the node's for thinking (`visibleBudgetOf`). */
  readonly visibleBudget?: VisibleBudgetOptions | undefined;
}

const encode = (events: readonly ResponsesStreamEvent[]): string => events.map(encodeResponsesEvent).join('');

export function createResponsesOutput(context: ResponsesOutputContext): ChatOutput<OllamaChatChunk> {
  const converter = createResponsesStreamConverter(context);
  return createConvertedOutput({
    streaming: context.streaming,
    options: context.options,
    visibleBudget: context.visibleBudget,
    convert: (chunk) => encode(converter.push(chunk)),
    close: () => encode(converter.end()),
    render: (whole) => toResponsesResponse(whole, context),
    fail: (error) => encode(converter.fail(error)),
  });
}
