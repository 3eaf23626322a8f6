/**
 * Responses `input` → Ollama messages (protocols §4.1 → §2.3), for `fromResponsesRequest`.
 * - A string is one user message. Message items keep their role (`developer` → `system`); content parts
 *   are flattened as in chat: text parts (`input_text`, `output_text`, `text`, `summary_text`, a
 *   `refusal`) joined with "\n", `input_image` parts → `images` as bare base64; `input_file` → 400.
 * - `function_call` items become `tool_calls` of an assistant message: of the assistant message just
 *   before when there is one (the model wrote text, then called), else of a new one, so consecutive calls
 *   make one message. `arguments` (a JSON string) is parsed into the object Ollama requires ("" = no
 *   arguments); anything else is a 400 naming the item. `custom_tool_call` items are calls too, their
 *   text passed as `{"input": …}` (the shape `fromResponsesTools` gives custom tools). A call the router
 *   wrote for a namespaced tool comes back with its `namespace`; the model sees the name it called,
 *   `<namespace>__<name>` (`responses-tool-names.ts`), and so does the tool result's `tool_name`.
 *   A `local_shell_call` is a call of `local_shell` with the arguments `fromResponsesTools` offers
 *   (`command`, and `workdir`, `timeout_ms` when the action has them); its result comes as a
 *   `function_call_output`.
 * - `function_call_output` and `custom_tool_call_output` → `role: tool` with `tool_call_id` and the name
 *   of the earlier call with that id (`tool_name`, when there is one); text and images as above.
 * - `reasoning` items send no message: their text (raw `reasoning_text` content, else the summary) becomes
 *   the `thinking` of the next assistant message, as the chat translator does with `reasoning_content`,
 *   and is dropped if a user, system or tool message comes first. The reference dropped it always.
 * - `additional_tools` items carry tools (`fromResponsesTools` reads them); `item_reference` → 400: it
 *   points at an item OpenAI stored, and the router stores none.
 * Pure; throws only `BadRequestError` naming the field.
 */
import { BadRequestError } from '../../errors';
import type { OllamaMessage, OllamaToolCall } from '../../wire/ollama';
import type { ResponsesInputItem, ResponsesMessagePart, ResponsesOutputPart } from '../../wire/responses';
import { parseToolArguments } from '../request-fields';
import { responsesImageData } from './responses-image-data';
import { modelToolName } from './responses-tool-names';

type MessageItem = Extract<ResponsesInputItem, { role: string }>;

interface Draft {
  role: OllamaMessage['role'];
  content: string;
  thinking?: string;
  images?: string[];
  tool_calls?: OllamaToolCall[];
  tool_call_id?: string;
  tool_name?: string;
}

export function fromResponsesInput(
  input: string | readonly ResponsesInputItem[] | null | undefined,
  images: ReadonlyMap<string, string>,
): OllamaMessage[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  const messages: Draft[] = [];
  const toolNames = new Map<string, string>();
  let thinking: string | undefined;

  function addCall(callId: string, name: string, args: Record<string, unknown>): void {
    toolNames.set(callId, name);
    const last = messages[messages.length - 1];
    const message: Draft = last?.role === 'assistant' ? last : { role: 'assistant', content: '' };
    if (message !== last) messages.push(message);
    const calls = message.tool_calls ?? [];
    calls.push({ id: callId, function: { index: calls.length, name, arguments: args } });
    message.tool_calls = calls;
    takeThinking(message);
  }

  function takeThinking(message: Draft): void {
    if (thinking === undefined) return;
    message.thinking = message.thinking === undefined ? thinking : `${message.thinking}\n${thinking}`;
    thinking = undefined;
  }

  input.forEach((item, index) => {
    const field = `input.${index}`;
    switch (item.type) {
      case undefined:
      case 'message': {
        const message = fromMessageItem(item, field, images);
        if (message.role === 'assistant') takeThinking(message);
        else thinking = undefined;
        messages.push(message);
        return;
      }
      case 'function_call':
        addCall(
          item.call_id,
          modelToolName(item.namespace, item.name),
          parseToolArguments(item.arguments, `${field}.arguments`),
        );
        return;
      case 'local_shell_call': {
        const { command, working_directory: workdir, timeout_ms: timeout } = item.action;
        addCall(item.call_id, 'local_shell', {
          command,
          ...(workdir === undefined || workdir === null ? {} : { workdir }),
          ...(timeout === undefined || timeout === null ? {} : { timeout_ms: timeout }),
        });
        return;
      }
      case 'custom_tool_call':
        addCall(item.call_id, modelToolName(item.namespace, item.name), { input: item.input });
        return;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        thinking = undefined;
        const name = toolNames.get(item.call_id);
        messages.push({
          role: 'tool',
          ...fromParts(item.output, `${field}.output`, images),
          tool_call_id: item.call_id,
          ...(name === undefined ? {} : { tool_name: name }),
        });
        return;
      }
      case 'reasoning': {
        const text = reasoningText(item);
        if (text !== '') thinking = thinking === undefined ? text : `${thinking}\n${text}`;
        return;
      }
      case 'item_reference':
        throw new BadRequestError(
          `${field}: item_reference items point at stored items, and the router stores none; send the items themselves`,
          field,
        );
      case 'additional_tools':
        return;
    }
  });
  return messages;
}

/** Every image URL in the input with its field (data URIs included), in order. */
export function responsesImageUrls(
  input: string | readonly ResponsesInputItem[] | null | undefined,
): { url: string; field: string }[] {
  if (input === undefined || input === null || typeof input === 'string') return [];
  const urls: { url: string; field: string }[] = [];
  for (const [index, item] of input.entries()) {
    const content =
      item.type === undefined || item.type === 'message'
        ? item.content
        : item.type === 'function_call_output' || item.type === 'custom_tool_call_output'
          ? item.output
          : undefined;
    if (content === undefined || typeof content === 'string') continue;
    const field = `input.${index}.${item.type === undefined || item.type === 'message' ? 'content' : 'output'}`;
    for (const [at, part] of content.entries()) {
      if (part.type === 'input_image' && part.image_url !== undefined && part.image_url !== null) {
        urls.push({ url: part.image_url, field: `${field}.${at}.image_url` });
      }
    }
  }
  return urls;
}

function fromMessageItem(item: MessageItem, field: string, images: ReadonlyMap<string, string>): Draft {
  const role = item.role === 'developer' ? 'system' : item.role;
  return { role, ...fromParts(item.content, `${field}.content`, images) };
}

/** Text and images of a content list; `field` names the list. */
function fromParts(
  content: string | readonly (ResponsesMessagePart | ResponsesOutputPart)[],
  field: string,
  fetched: ReadonlyMap<string, string>,
): Pick<Draft, 'content' | 'images'> {
  if (typeof content === 'string') return { content };
  const texts: string[] = [];
  const images: string[] = [];
  content.forEach((part, index) => {
    const partField = `${field}.${index}`;
    switch (part.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
      case 'summary_text':
        texts.push(part.text);
        return;
      case 'refusal':
        texts.push(part.refusal);
        return;
      case 'input_image':
        images.push(responsesImageData(part, partField, fetched));
        return;
      case 'input_file':
        throw new BadRequestError(`${partField}: input_file parts are not supported; send text and images`, partField);
    }
  });
  return { content: texts.join('\n'), ...(images.length === 0 ? {} : { images }) };
}

function reasoningText(item: Extract<ResponsesInputItem, { type: 'reasoning' }>): string {
  const parts =
    item.content !== undefined && item.content !== null && item.content.length > 0 ? item.content : item.summary;
  return (parts ?? []).map((part) => part.text).join('\n');
}
