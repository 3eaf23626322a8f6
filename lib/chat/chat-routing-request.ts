/**
 * What a chat request is routed by: the model and its fallbacks, whether it carries images (vision
 * models only) or tools, an estimate of the prompt's size for the context-fit signal, and the
 * conversation key that pins a conversation to the node that served it (also what the context layers
 * remember cleared tool results by: `chatConversationKey`).
 */
import { conversationKey } from '../routing/affinity';
import type { RoutingRequest } from '../routing/routing-request';

export interface ChatRoutingInput {
  readonly model: string;
  readonly fallbackModels: readonly string[];
  readonly tags: readonly string[];
  readonly messages: readonly {
    readonly role: string;
    readonly content?: string | null | undefined;
    readonly images?: readonly string[] | null | undefined;
  }[];
  readonly tools: number;
  /** The context layers' estimate (`estimatePromptTokens`), when they measured the prompt. */
  readonly promptTokens?: number | undefined;
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

/** Roughly four characters a token; an image costs about what a vision encoder emits for one tile. */
const CHARS_PER_TOKEN = 4;
const TOKENS_PER_IMAGE = 768;

export function chatRoutingRequest(input: ChatRoutingInput): RoutingRequest {
  let characters = 0;
  let images = 0;
  for (const message of input.messages) {
    characters += message.content?.length ?? 0;
    images += message.images?.length ?? 0;
  }
  const key = chatConversationKey(input.model, input.tags, input.messages);
  const estimate = Math.ceil(characters / CHARS_PER_TOKEN) + images * TOKENS_PER_IMAGE;
  return {
    model: input.model,
    fallbackModels: input.fallbackModels,
    kind: 'chat',
    needsVision: images > 0,
    needsTools: input.tools > 0,
    promptTokens: input.promptTokens ?? estimate,
    ...(key !== undefined ? { conversationKey: key } : {}),
  };
}
