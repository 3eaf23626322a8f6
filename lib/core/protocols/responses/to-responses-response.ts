/**
 * The node's whole chat reply → a Responses response object (protocols §2.3 → §4.2). The reply is the
 * node's `stream: false` object or the streamed lines accumulated into one (`createOllamaChatAccumulator`);
 * both have the final line's metrics. `output`, in this order:
 * - a `reasoning` item when the model thought, its thinking whole as one `summary_text` part;
 * - a `message` item with one `output_text` part (`annotations: []`, `logprobs: []`) when there is text,
 *   or when there are no calls (so a reply always has a message or a call, and `output_text` exists);
 * - one `function_call` (or `custom_tool_call`, `to-responses-call-item.ts`) item per tool call.
 * Status `completed`, or `incomplete` with `incomplete_details` on a budget cut (`map-responses-status.ts`;
 * the message is then `incomplete` too); `usage` from `toResponsesUsage`. Item ids come from the
 * response id and the item's index (`responses-item-ids.ts`), so the streamed reply of the same lines
 * ends with this very object (`createResponsesStreamConverter`). Pure.
 */
import type { OllamaChatChunk } from '../../wire/ollama';
import type { ResponsesOutputItem, ResponsesResponse } from '../../wire/responses';
import { responsesToolIndex } from './from-responses-tools';
import { mapResponsesStatus } from './map-responses-status';
import { type ResponsesContext, responsesEnvelope } from './responses-envelope';
import { outputItemId } from './responses-item-ids';
import { argumentsText, toResponsesCallItem } from './to-responses-call-item';
import { toResponsesUsage } from './to-responses-usage';

/** @see protocols.md §4.2 */
export function toResponsesResponse(response: OllamaChatChunk, context: ResponsesContext): ResponsesResponse {
  const status = mapResponsesStatus(response.done_reason);
  const content = response.message?.content ?? '';
  const thinking = response.message?.thinking ?? '';
  const calls = response.message?.tool_calls ?? [];
  const tools = responsesToolIndex(context.request);
  const output: ResponsesOutputItem[] = [];
  if (thinking !== '') {
    output.push({
      id: outputItemId('rs', context.id, output.length),
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: thinking }],
    });
  }
  if (content !== '' || calls.length === 0) {
    output.push({
      id: outputItemId('msg', context.id, output.length),
      type: 'message',
      status: status === 'incomplete' ? 'incomplete' : 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: content, annotations: [], logprobs: [] }],
    });
  }
  calls.forEach((call, callIndex) => {
    output.push(toResponsesCallItem(call, { responseId: context.id, outputIndex: output.length, callIndex, tools }));
  });
  const argumentsLength = calls.reduce((sum, call) => sum + argumentsText(call.function.arguments).length, 0);
  return responsesEnvelope(context, {
    status,
    output,
    usage: toResponsesUsage(response, { thinking: thinking.length, output: content.length + argumentsLength }),
    completedAt: context.now(),
  });
}
