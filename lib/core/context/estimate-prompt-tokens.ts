/**
 * The prompt size of a canonical request (ARCHITECTURE.md §3.8: Ollama chat), in `countTokens` tokens: what
 * `/v1/messages/count_tokens` answers (anchor §3.7) and what the context layers compare with their
 * thresholds (anchor §3.8), for every family translated to the canonical request.
 *
 * Counted, each text with `countTokens` (cl100k_base) and summed:
 * - every message's `content`: system, user and assistant text, and tool results (a `role: tool`
 *   message's content is the result's text);
 * - every assistant tool call: the function's name plus its `arguments` as compact JSON;
 * - every image, of any message: `IMAGE_TOKENS`;
 * - every tool definition: the whole `tools[i]` object as compact JSON (name, description, schema).
 * Not counted: roles and the chat template's framing (model-specific, a few tokens a message), the
 * `thinking` of earlier turns (clients drop it or templates strip it), `tool_name`/`tool_call_id`,
 * `options` and `format`. Pure.
 */
import { countTokens } from '../tokens/count-tokens';
import type { OllamaChatRequest, OllamaMessage, OllamaTool } from '../wire/ollama';

/**
 * Tokens per image, whatever its size: Anthropic's own estimate for a full-size image (~1.15 MP, the
 * largest it takes unscaled: width × height / 750 ≈ 1,600) and Llama 3.2 Vision's 1,601 tokens a tile,
 * the top of what the fleet's vision models spend (LLaVA 576, OpenAI's 1024² at high detail 765, Qwen2.5-VL
 * ~1,300 at 1024²). A generous figure, so the trigger and the cap err towards keeping a model's context
 * from overflowing.
 */
export const IMAGE_TOKENS = 1_600;

/** The parts of a canonical request that reach the model's prompt. */
export type PromptParts = Pick<OllamaChatRequest, 'messages' | 'tools'>;

function jsonTokens(value: unknown): number {
  return countTokens(JSON.stringify(value) ?? '');
}

export function estimateMessageTokens(message: OllamaMessage): number {
  let tokens = countTokens(message.content) + (message.images?.length ?? 0) * IMAGE_TOKENS;
  for (const call of message.tool_calls ?? []) {
    tokens += countTokens(call.function.name) + jsonTokens(call.function.arguments);
  }
  return tokens;
}

export function estimateToolsTokens(tools: readonly OllamaTool[] | undefined): number {
  let tokens = 0;
  for (const tool of tools ?? []) tokens += jsonTokens(tool);
  return tokens;
}

export function estimatePromptTokens(request: PromptParts): number {
  return measurePrompt(request).total;
}

/** The estimate with its parts, so a layer that edits some messages updates the total without recounting. */
export interface PromptMeasure {
  /** `estimateMessageTokens` of each message, in order. */
  readonly messageTokens: readonly number[];
  readonly toolsTokens: number;
  /** `estimatePromptTokens`: the tools plus every message. */
  readonly total: number;
}

export function measurePrompt(request: PromptParts): PromptMeasure {
  const toolsTokens = estimateToolsTokens(request.tools);
  const messageTokens = request.messages.map(estimateMessageTokens);
  const total = messageTokens.reduce((sum, tokens) => sum + tokens, toolsTokens);
  return { messageTokens, toolsTokens, total };
}
