/**
 * OpenAI chat messages → Ollama messages (protocols §3.1 → §2.3), for `fromOpenAIChatRequest`.
 * - Content parts are flattened: text parts joined with "\n" (the reference's choice; a part is a block
 *   of its own), `image_url` parts become the message's `images` as bare base64. An `http(s)` URL must be
 *   in the caller's map of fetched images; a missing one is a 400 naming the part.
 * - Assistant `tool_calls` keep their `id`; `arguments` (a JSON string) is parsed into the object Ollama
 *   requires (an empty string means no arguments). Earlier reasoning sent back as `reasoning_content` or
 *   `reasoning` becomes `thinking`; a `refusal` stands in for absent content.
 * - Tool results keep `tool_call_id` and get `tool_name` from the earlier assistant call with that id
 *   (omitted when no earlier call has it: OpenAI would reject that, the router lets the model see it).
 * - `name` on a message has no Ollama counterpart and is not sent.
 * Pure; throws only `BadRequestError` naming the field.
 */
import { BadRequestError } from '../../errors';
import type { OllamaMessage, OllamaToolCall } from '../../wire/ollama';
import type { OpenAIChatMessage, OpenAIChatToolCallParam } from '../../wire/openai';
import { parseToolArguments } from '../request-fields';

type AssistantMessage = Extract<OpenAIChatMessage, { role: 'assistant' }>;
type UserMessage = Extract<OpenAIChatMessage, { role: 'user' }>;

/** Standard base64 with padding, as Ollama decodes images (Go `StdEncoding`). */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function fromOpenAIChatMessages(
  messages: readonly OpenAIChatMessage[],
  images: ReadonlyMap<string, string>,
): OllamaMessage[] {
  const toolNames = new Map<string, string>();
  return messages.map((message, index) => fromMessage(message, `messages.${index}`, images, toolNames));
}

function fromMessage(
  message: OpenAIChatMessage,
  field: string,
  images: ReadonlyMap<string, string>,
  toolNames: Map<string, string>,
): OllamaMessage {
  switch (message.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: joinText(message.content) };
    case 'user':
      return fromUserMessage(message, field, images);
    case 'assistant':
      return fromAssistantMessage(message, field, toolNames);
    case 'tool': {
      const name = toolNames.get(message.tool_call_id);
      return {
        role: 'tool',
        content: joinText(message.content),
        tool_call_id: message.tool_call_id,
        ...(name === undefined ? {} : { tool_name: name }),
      };
    }
  }
}

/** Every image URL in the messages with its field, in order (data URIs included). */
export function openAIImageUrls(messages: readonly OpenAIChatMessage[]): { url: string; field: string }[] {
  const urls: { url: string; field: string }[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'user' || typeof message.content === 'string') continue;
    for (const [at, part] of message.content.entries()) {
      if (part.type === 'image_url')
        urls.push({ url: part.image_url.url, field: `messages.${index}.content.${at}.image_url.url` });
    }
  }
  return urls;
}

/** True for the URLs the caller fetches (`http:` and `https:`). */
export function isFetchedImageUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

function joinText(content: string | readonly { readonly text: string }[]): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('\n');
}

function fromUserMessage(message: UserMessage, field: string, fetched: ReadonlyMap<string, string>): OllamaMessage {
  if (typeof message.content === 'string') return { role: 'user', content: message.content };
  const texts: string[] = [];
  const images: string[] = [];
  message.content.forEach((part, index) => {
    const partField = `${field}.content.${index}`;
    switch (part.type) {
      case 'text':
        texts.push(part.text);
        return;
      case 'image_url':
        images.push(imageUrlData(part.image_url.url, `${partField}.image_url.url`, fetched));
        return;
      case 'input_audio':
      case 'file':
        throw new BadRequestError(
          `${partField}: ${part.type} parts are not supported; send text and images`,
          partField,
        );
    }
  });
  return { role: 'user', content: texts.join('\n'), ...(images.length === 0 ? {} : { images }) };
}

/**
 * An image URL → the bare base64 Ollama takes: a fetched http(s) URL from the caller's map, or a base64
 * `data:` URI of an image type, or of none given (Ollama decodes with Go's `StdEncoding`); anything
 * else — another type, no bytes — is a 400 naming `field`.
 */
export function imageUrlData(url: string, field: string, fetched: ReadonlyMap<string, string>): string {
  if (isFetchedImageUrl(url)) {
    const data = fetched.get(url);
    if (data === undefined) throw new BadRequestError(`${field}: the image could not be fetched`, field);
    return data;
  }
  if (!/^data:/i.test(url)) throw new BadRequestError(`${field}: expected a data: URI or an http(s) URL`, field);
  const comma = url.indexOf(',');
  const header = comma === -1 ? '' : url.slice(5, comma).toLowerCase();
  if (!header.endsWith(';base64')) {
    throw new BadRequestError(`${field}: a data URI must be base64-encoded`, field);
  }
  const type = header.slice(0, header.indexOf(';'));
  if (type !== '' && !type.startsWith('image/')) {
    throw new BadRequestError(`${field}: the data URI holds ${type}, not an image`, field);
  }
  const payload = url.slice(comma + 1);
  if (payload === '') throw new BadRequestError(`${field}: the data URI holds no image`, field);
  if (payload.length % 4 !== 0 || !BASE64.test(payload)) {
    throw new BadRequestError(`${field}: the data URI is not valid base64`, field);
  }
  return payload;
}

function fromAssistantMessage(message: AssistantMessage, field: string, toolNames: Map<string, string>): OllamaMessage {
  const content = message.content;
  const text =
    content === undefined || content === null
      ? (message.refusal ?? '')
      : typeof content === 'string'
        ? content
        : content.map((part) => (part.type === 'text' ? part.text : part.refusal)).join('\n');
  const thinking = message.reasoning_content ?? message.reasoning;
  const toolCalls = (message.tool_calls ?? []).map((call, index) => {
    toolNames.set(call.id, call.function.name);
    return fromToolCall(call, index, `${field}.tool_calls.${index}`);
  });
  return {
    role: 'assistant',
    content: text,
    ...(thinking === undefined || thinking === null || thinking === '' ? {} : { thinking }),
    ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
  };
}

function fromToolCall(call: OpenAIChatToolCallParam, index: number, field: string): OllamaToolCall {
  return {
    id: call.id,
    function: {
      index,
      name: call.function.name,
      arguments: parseToolArguments(call.function.arguments, `${field}.function.arguments`),
    },
  };
}
