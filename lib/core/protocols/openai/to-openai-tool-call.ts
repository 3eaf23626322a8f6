/**
 * An Ollama tool call → an OpenAI one (protocols §2.3 → §3.2). Ollama sends `arguments` as an object;
 * OpenAI clients expect a JSON string (a string from a node is relayed as it is). The node's `id` is
 * kept so the client's `tool_call_id` finds the call again; a node that sends none gets an id derived
 * from the completion id and the call's position, unique per reply and the same on every replay. Pure.
 */
import type { OllamaChatChunkToolCall } from '../../wire/ollama';
import type { OpenAIToolCall } from '../../wire/openai';

/** `chatcmpl-abc` + call 2 → `call_abc_2`. */
export function fallbackToolCallId(completionId: string, index: number): string {
  return `call_${completionId.replace(/^chatcmpl-/, '')}_${index}`;
}

export function toOpenAIToolCall(call: OllamaChatChunkToolCall, completionId: string, index: number): OpenAIToolCall {
  const args = call.function.arguments;
  const id = call.id ?? '';
  return {
    id: id === '' ? fallbackToolCallId(completionId, index) : id,
    type: 'function',
    function: {
      name: call.function.name,
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    },
  };
}
