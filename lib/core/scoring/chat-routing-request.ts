/**
 * What a chat request is routed by: the model and its fallbacks, whether it carries images (vision
 * models only) or tools, an estimate of the prompt's size and the answer budget for context protection
 * (../context/context-window), and the
 * conversation key that pins a conversation to the node that served it (also what the context layers
 * remember cleared tool results by: `chatConversationKey`), and whether the conversation goes on (an
 * assistant turn), so a pin another instance made is looked up.
 */

import type { WaitClaim } from '../queue/wait-line';
import { conversationKey } from './conversation-key';
import type { RoutingRequest } from './routing-request';

export interface ChatRoutingInput {
  readonly model: string;
  readonly fallbackModels: readonly string[];
  readonly tags: readonly string[];
  readonly messages: readonly {
    readonly role: string;
    readonly content?: string | null | undefined;
    readonly images?: readonly string[] | null | undefined;
    readonly tool_calls?: readonly unknown[] | null | undefined;
  }[];
  /** The tool definitions the model is given (they are part of its prompt). */
  readonly tools: readonly unknown[] | null | undefined;
  /** The context layers' estimate (`estimatePromptTokens`), when they measured the prompt. */
  readonly promptTokens?: number | undefined;
  /** The output budget sent to the node (`options.num_predict`), when there is one. */
  readonly answerTokens?: number | null | undefined;
  /** Its place in a queue's line (priority, application): lib/services/http/request-claim. */
  readonly claim?: WaitClaim | undefined;
}

type ChatMessages = ChatRoutingInput['messages'];

/** `conversationKey` of a chat: its model, tags, system prompt and first user turn. */
export function chatConversationKey(
  model: string,
  tags: readonly string[],
  messages: ChatMessages,
): string | undefined {
  const system = messages.find((message) => message.role === 'system')?.content ?? undefined;
  const firstUser = messages.find((message) => message.role === 'user')?.content ?? undefined;
  return conversationKey({ model, tags, systemPrompt: system, firstUserTurn: firstUser });
}

/**
 * Roughly four characters a token (0.78–1.21× the cl100k count on this repository's sources and docs:
 * ../context/context-window); an image costs about what a vision encoder emits for one tile.
 */
const CHARS_PER_TOKEN = 4;
const TOKENS_PER_IMAGE = 768;

/**
 * About the length of `JSON.stringify(value)` (quotes, keys and separators counted, escapes not) without
 * building it: a walk is ~100× cheaper than the string (2 µs against 240 µs for 73 KB of tool definitions),
 * and the estimate is a quarter of it anyway. Depth is bounded at the edge (lib/services/http/request-bounds).
 */
function jsonLength(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  if (Array.isArray(value)) {
    let length = 2;
    for (const item of value) length += jsonLength(item) + 1;
    return length;
  }
  if (typeof value === 'object' && value !== null) {
    let length = 2;
    for (const key in value) length += key.length + 4 + jsonLength(Reflect.get(value, key));
    return length;
  }
  return value === undefined ? 0 : String(value).length;
}

/**
 * The characters of everything the model reads that is not text content: tool definitions (an agent
 * such as Claude Code sends tens of thousands of tokens of them) and earlier tool calls' arguments.
 * Only counted when the context layers did not measure the prompt already.
 */
function structuredCharacters(input: ChatRoutingInput): number {
  let characters = input.tools === undefined || input.tools === null ? 0 : jsonLength(input.tools);
  for (const message of input.messages) {
    if (message.tool_calls !== undefined && message.tool_calls !== null) characters += jsonLength(message.tool_calls);
  }
  return characters;
}

export function chatRoutingRequest(input: ChatRoutingInput): RoutingRequest {
  let characters = 0;
  let images = 0;
  let continues = false;
  /** Characters through the last assistant turn: the part an earlier turn left in a node's cache. */
  let answered = 0;
  for (const message of input.messages) {
    characters += message.content?.length ?? 0;
    images += message.images?.length ?? 0;
    if (message.role === 'assistant') {
      continues = true;
      answered = characters;
    }
  }
  const key = chatConversationKey(input.model, input.tags, input.messages);
  const promptTokens =
    input.promptTokens ??
    Math.ceil((characters + structuredCharacters(input)) / CHARS_PER_TOKEN) + images * TOKENS_PER_IMAGE;
  const answer = input.answerTokens;
  // Optional fields set one by one, not spread into the literal (lib/core/merged.ts).
  const request: { -readonly [K in keyof RoutingRequest]: RoutingRequest[K] } = {
    model: input.model,
    fallbackModels: input.fallbackModels,
    kind: 'chat',
    needsVision: images > 0,
    needsTools: (input.tools?.length ?? 0) > 0,
    promptTokens,
  };
  if (answer !== undefined && answer !== null) request.answerTokens = answer;
  if (input.claim !== undefined) request.claim = input.claim;
  if (key !== undefined) {
    request.conversationKey = key;
    if (continues) {
      request.continuesConversation = true;
      request.prefixTokens = Math.min(promptTokens, Math.floor(answered / CHARS_PER_TOKEN));
    }
  }
  return request;
}
