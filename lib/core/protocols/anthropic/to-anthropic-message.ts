/**
 * The node's whole chat reply → an Anthropic `message` body (protocols §2.3 → §6.3). The reply is the
 * node's `stream: false` object or the streamed lines accumulated into one
 * (`createOllamaChatAccumulator`); both have the final line's metrics. Id and model name come in as
 * parameters, so the same reply always gives the same body.
 * - `content`, in this order: a `thinking` block when the model thought (left out before this for a
 *   client that did not ask for thinking: `anthropic-output.ts`), signed by the router (`thinking-signature.ts`: nodes do not sign), a `text` block (left out when it is empty and there are tool
 *   calls, as Anthropic does), one `tool_use` block per call (`to-anthropic-tool-use.ts`).
 * - `stop_reason`/`stop_sequence` from `mapAnthropicStopReason`; `usage` from `toAnthropicUsage`.
 * The stream converter produces the same content, so `finalMessage()` of a stream equals this body.
 * Pure.
 */
import type { AnthropicContentBlock, AnthropicMessage } from '../../wire/anthropic';
import type { OllamaChatChunk } from '../../wire/ollama';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason';
import { thinkingSignature } from './thinking-signature';
import { toAnthropicToolUse } from './to-anthropic-tool-use';
import { toAnthropicUsage } from './to-anthropic-usage';

export interface AnthropicMessageContext {
  /** `msg_…`, made by the caller. */
  readonly id: string;
  /** The model name to report. */
  readonly model: string;
  /** The request's `stop_sequences` (empty when it had none), to name the one that ended the reply. */
  readonly stopSequences: readonly string[];
}

/** @see protocols.md §6.3 */
export function toAnthropicMessage(response: OllamaChatChunk, context: AnthropicMessageContext): AnthropicMessage {
  const thinking = response.message?.thinking ?? '';
  const text = response.message?.content ?? '';
  const toolUses = (response.message?.tool_calls ?? []).map((call, index) =>
    toAnthropicToolUse(call, context.id, index),
  );
  const content: AnthropicContentBlock[] = [
    ...(thinking === '' ? [] : [{ type: 'thinking' as const, thinking, signature: thinkingSignature(thinking) }]),
    ...(text === '' && toolUses.length > 0 ? [] : [{ type: 'text' as const, text }]),
    ...toolUses,
  ];
  const stop = mapAnthropicStopReason(response.done_reason, {
    calledTools: toolUses.length > 0,
    text,
    stopSequences: context.stopSequences,
  });
  return {
    id: context.id,
    type: 'message',
    role: 'assistant',
    model: context.model,
    content,
    ...stop,
    usage: toAnthropicUsage(response),
  };
}
