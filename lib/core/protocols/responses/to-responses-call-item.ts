/**
 * An Ollama tool call → a Responses output item (protocols §2.3 → §4.2): a `function_call` with
 * `arguments` as a JSON string (Ollama sends an object; a string from a node is relayed as it is), or,
 * when the name is one of the request's custom tools, a `custom_tool_call` whose `input` is the text
 * the model put in the one `input` argument `fromResponsesTools` gave it. A call of a namespaced tool
 * (`multi_agent_v1__spawn_agent` to the model) carries the client's `name` and its `namespace`, as
 * OpenAI writes it and Codex dispatches it (`ToolName::new(namespace, name)`). A call of the
 * `local_shell` tool is a `local_shell_call` whose `exec` action is the model's `command` (an argv; a
 * single string is run as `bash -lc <string>`), `workdir` and `timeout_ms`. Pure.
 */
import { parseJson } from '../../wire/json';
import type { OllamaChatChunkToolCall } from '../../wire/ollama';
import type { ResponsesCallItem, ResponsesLocalShellCallItem } from '../../wire/responses';
import { outputItemId, responsesCallId } from './responses-item-ids';
import { clientToolOf, type ResponsesToolIndex } from './responses-tool-names';

export interface CallItemPlace {
  readonly responseId: string;
  readonly outputIndex: number;
  /** The call's position among the reply's calls (for a derived `call_id`). */
  readonly callIndex: number;
  /** The request's tools by the names the model sees (`responsesToolIndex`). */
  readonly tools: ResponsesToolIndex;
}

export function toResponsesCallItem(call: OllamaChatChunkToolCall, place: CallItemPlace): ResponsesCallItem {
  const target = clientToolOf(place.tools, call.function.name);
  const callId = responsesCallId(call, place.responseId, place.callIndex);
  const args = call.function.arguments;
  const namespace = target.namespace === undefined ? {} : { namespace: target.namespace };
  if (target.kind === 'local_shell') return localShellCall(args, callId, place);
  if (target.kind === 'custom') {
    return {
      id: outputItemId('ctc', place.responseId, place.outputIndex),
      type: 'custom_tool_call',
      call_id: callId,
      name: target.name,
      ...namespace,
      input: customInput(args),
    };
  }
  return {
    id: outputItemId('fc', place.responseId, place.outputIndex),
    type: 'function_call',
    status: 'completed',
    call_id: callId,
    name: target.name,
    ...namespace,
    arguments: argumentsText(args),
  };
}

/** The arguments as JSON text: a node's string as it is, an object serialized (as `diagnostic-headers.ts` counts). */
export function argumentsText(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}

function localShellCall(args: unknown, callId: string, place: CallItemPlace): ResponsesLocalShellCallItem {
  const parsed = typeof args === 'string' ? parseJson(args) : { ok: true, value: args };
  const value: Record<string, unknown> =
    parsed.ok && typeof parsed.value === 'object' && parsed.value !== null ? { ...parsed.value } : {};
  const { command, workdir, timeout_ms: timeout } = value;
  return {
    id: outputItemId('lsh', place.responseId, place.outputIndex),
    type: 'local_shell_call',
    status: 'completed',
    call_id: callId,
    action: {
      type: 'exec',
      command: argv(command),
      timeout_ms: typeof timeout === 'number' ? timeout : null,
      working_directory: typeof workdir === 'string' ? workdir : null,
      env: {},
      user: null,
    },
  };
}

/** An argv as the model wrote it; a single string is a shell line. */
function argv(command: unknown): string[] {
  if (Array.isArray(command)) return command.map((part) => (typeof part === 'string' ? part : JSON.stringify(part)));
  return ['bash', '-lc', typeof command === 'string' ? command : ''];
}

/** `{"input": "…"}` (an object, or a node's JSON string) → the text; anything else is relayed as JSON. */
function customInput(args: unknown): string {
  const parsed = typeof args === 'string' ? parseJson(args) : { ok: true, value: args };
  const value = parsed.ok ? parsed.value : undefined;
  if (typeof value === 'object' && value !== null && 'input' in value && typeof value.input === 'string') {
    return value.input;
  }
  return argumentsText(args);
}
