/**
 * What a chat request is routed by: the model and its fallbacks, whether it carries images (vision
 * models only) or tools, an estimate of the prompt's size for the context-fit signal, and the
 * conversation key that pins a conversation to the node that served it.
 */
import { conversationKey } from '../routing/affinity';
import type { RoutingRequest } from '../routing/routing-request';

export interface ChatRoutingInput {
  readonly model: string;
  readonly fallbackModels: readonly string[];
  readonly tags: readonly string[];
  readonly messages: readonly {
    readonly role: string;
    readonly content?: string | null;
    readonly images?: readonly string[] | null;
  }[];
  readonly tools: number;
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
  const system = input.messages.find((message) => message.role === 'system')?.content ?? undefined;
  const firstUser = input.messages.find((message) => message.role === 'user')?.content ?? undefined;
  const key = conversationKey({ model: input.model, tags: input.tags, systemPrompt: system, firstUserTurn: firstUser });
  return {
    model: input.model,
    fallbackModels: input.fallbackModels,
    kind: 'chat',
    needsVision: images > 0,
    needsTools: input.tools > 0,
    promptTokens: Math.ceil(characters / CHARS_PER_TOKEN) + images * TOKENS_PER_IMAGE,
    ...(key !== undefined ? { conversationKey: key } : {}),
  };
}
