/**
 * Anthropic messages → Ollama messages (protocols §6.2 → §2.3), for `fromAnthropicMessagesRequest`.
 * - A string content is the message's content. Blocks: `text` joined with "\n", `image` → `images` as
 *   bare base64, `document` → its text (`from-anthropic-content.ts`).
 * - `tool_use` → the message's `tool_calls`, keeping the `id` and the `input` object as `arguments`.
 * - Each `tool_result` → a `role: "tool"` message of its own with `tool_call_id` (the `tool_use_id`) and
 *   `tool_name` (from the earlier `tool_use` with that id, omitted when none has it); its content
 *   flattened the same way, images kept on the tool message. `is_error: true` prefixes "Error: " so the
 *   model knows the call failed. Anthropic puts results first in the user turn that answers the calls, so
 *   a user turn becomes its tool messages, then its text (only when it has any): the node sees call,
 *   results, then the user's words.
 * - `thinking` → the assistant message's `thinking` (Ollama's own compatibility layer does the same; the
 *   templates of thinking models need it to continue a tool-use turn); `signature` means nothing to a
 *   node. `redacted_thinking` is encrypted for Anthropic's models only and is dropped, as are blocks of
 *   unknown types (`anthropicSkippedBlocks` names both).
 * - `system` turns are returned apart, for the caller to fold into the system prompt.
 * Pure; throws only `BadRequestError` naming the field.
 */
import { type AnthropicMessageParam, isKnownAnthropicBlock } from '../../wire/anthropic';
import type { OllamaMessage, OllamaToolCall } from '../../wire/ollama';
import { addAnthropicContentBlock, type ContentParts, fromAnthropicContent } from './from-anthropic-content';

type ConversationMessage = Extract<AnthropicMessageParam, { role: 'user' | 'assistant' }>;
type ContentBlocks = Exclude<ConversationMessage['content'], string>;
type ToolResultBlock = Extract<ContentBlocks[number], { type: 'tool_result' }>;

export interface FromAnthropicMessagesResult {
  /** The text of each `system` turn, in order. */
  readonly systemTurns: readonly string[];
  readonly messages: readonly OllamaMessage[];
}

export function fromAnthropicMessages(
  messages: readonly AnthropicMessageParam[],
  images: ReadonlyMap<string, string>,
): FromAnthropicMessagesResult {
  const systemTurns: string[] = [];
  const translated: OllamaMessage[] = [];
  const toolNames = new Map<string, string>();
  messages.forEach((message, index) => {
    const field = `messages.${index}`;
    if (message.role === 'system') {
      const content = message.content;
      systemTurns.push(typeof content === 'string' ? content : content.map((block) => block.text).join('\n'));
      return;
    }
    translated.push(...fromMessage(message, field, images, toolNames));
  });
  return { systemTurns, messages: translated };
}

function fromMessage(
  message: ConversationMessage,
  field: string,
  fetched: ReadonlyMap<string, string>,
  toolNames: Map<string, string>,
): OllamaMessage[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
  const parts: ContentParts = { texts: [], images: [] };
  const thinking: string[] = [];
  const toolCalls: OllamaToolCall[] = [];
  const toolResults: OllamaMessage[] = [];
  message.content.forEach((block, index) => {
    const blockField = `${field}.content.${index}`;
    if (!isKnownAnthropicBlock(block)) return;
    switch (block.type) {
      case 'text':
      case 'image':
      case 'document':
        addAnthropicContentBlock(block, blockField, fetched, parts);
        return;
      case 'tool_use':
        toolNames.set(block.id, block.name);
        toolCalls.push({
          id: block.id,
          function: { index: toolCalls.length, name: block.name, arguments: { ...block.input } },
        });
        return;
      case 'tool_result':
        toolResults.push(fromToolResult(block, blockField, fetched, toolNames));
        return;
      case 'thinking':
        if (block.thinking !== '') thinking.push(block.thinking);
        return;
      case 'redacted_thinking':
        return;
    }
  });
  const main: OllamaMessage = {
    role: message.role,
    content: parts.texts.join('\n'),
    ...(thinking.length === 0 ? {} : { thinking: thinking.join('\n') }),
    ...(parts.images.length === 0 ? {} : { images: parts.images }),
    ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
  };
  const empty = main.content === '' && thinking.length === 0 && parts.images.length === 0 && toolCalls.length === 0;
  if (empty && toolResults.length > 0) return toolResults;
  return message.role === 'user' ? [...toolResults, main] : [main, ...toolResults];
}

function fromToolResult(
  block: ToolResultBlock,
  field: string,
  fetched: ReadonlyMap<string, string>,
  toolNames: ReadonlyMap<string, string>,
): OllamaMessage {
  const parts = fromAnthropicContent(block.content, `${field}.content`, fetched);
  const text = parts.texts.join('\n');
  const name = toolNames.get(block.tool_use_id);
  return {
    role: 'tool',
    content: block.is_error === true ? errorText(text) : text,
    ...(parts.images.length === 0 ? {} : { images: parts.images }),
    tool_call_id: block.tool_use_id,
    ...(name === undefined ? {} : { tool_name: name }),
  };
}

function errorText(text: string): string {
  return text === '' ? 'Error' : `Error: ${text}`;
}
