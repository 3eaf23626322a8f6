/**
 * An Ollama tool call → an Anthropic `tool_use` block (protocols §2.3 → §6.3). `input` is an object:
 * Ollama's arguments object as it is; a JSON string (some OpenAI-minded node agents send one) parsed;
 * anything that does not give an object — unparsable text, an array, a number — is kept whole as
 * `{"_raw": "<text>"}`, so the client sees what the model produced instead of an error or nothing.
 * The node's `id` is kept so the client's `tool_result` finds the call again; a node that sends none gets
 * an id derived from the message id and the call's position, the same in a stream and a whole reply and on
 * every replay (the reference made fresh random ones). Pure.
 */
import type { AnthropicToolUseBlock } from '../../wire/anthropic';
import { parseJson } from '../../wire/json';
import type { OllamaChatChunkToolCall } from '../../wire/ollama';

/** `msg_abc` + call 2 → `toolu_abc_2`. */
export function fallbackToolUseId(messageId: string, index: number): string {
  return `toolu_${messageId.replace(/^msg_/, '')}_${index}`;
}

export function toAnthropicToolUse(
  call: OllamaChatChunkToolCall,
  messageId: string,
  index: number,
): AnthropicToolUseBlock {
  const id = call.id ?? '';
  return {
    type: 'tool_use',
    id: id === '' ? fallbackToolUseId(messageId, index) : id,
    name: call.function.name,
    input: inputOf(call.function.arguments),
  };
}

function inputOf(args: unknown): Readonly<Record<string, unknown>> {
  if (args === undefined || args === null) return {};
  if (typeof args === 'string') {
    if (args.trim() === '') return {};
    const parsed = parseJson(args);
    return parsed.ok && isObject(parsed.value) ? { ...parsed.value } : { _raw: args };
  }
  return isObject(args) ? { ...args } : { _raw: JSON.stringify(args) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
