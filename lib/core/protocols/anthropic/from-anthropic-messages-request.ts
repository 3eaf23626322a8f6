/**
 * Anthropic Messages request → Ollama chat request (protocols §6.2 → §2.3, §2.5; ARCHITECTURE.md §3.8).
 * Pure: images come in already fetched, thinking capability comes from the caller; the only throw is a
 * `BadRequestError` naming the field.
 *
 * Where each top-level field goes:
 * - `messages` → `messages` (`from-anthropic-messages.ts`), after one system message built from `system`,
 *   any `system` turns and the tool-choice instruction (`anthropic-system-prompt.ts`, which also
 *   normalises Claude Code's `cch=` fingerprint); `model` and `stream` as they are.
 * - `max_tokens` (required: 400 without it, as Anthropic answers) → `options.num_predict`, raised for a
 *   thinking model (`thinking-budget.ts`) unless the client sent `thinking: {type: "enabled"}`: Anthropic
 *   counts thinking inside `max_tokens` and such a client chose `budget_tokens` below it, which is exactly
 *   how Ollama counts `num_predict`. `temperature`, `top_p`, `top_k`, `stop_sequences` → `options.temperature`,
 *   `top_p`, `top_k`, `stop` — only when sent: Anthropic has no default to fill in, the node's applies.
 * - `tools`, `tool_choice` → `tools` and an instruction (`from-anthropic-tools.ts`).
 * - `thinking` → `think`: `enabled` → true, `disabled` → false, `adaptive` → the `output_config.effort`
 *   level, else true; absent → the effort level when there is one (`xhigh` → high), else nothing (the
 *   model's default). Not sent to a model known to lack the `thinking` capability (Ollama answers 400).
 *   `budget_tokens` has no Ollama counterpart beyond `num_predict` (above).
 * - `output_config.format` `{type: "json_schema", schema}` → `format` (the schema; `"json"` without one);
 *   another format type is a 400.
 * - `metadata` (`user_id`, the router's `tags`) and `fallback_models` are the router's and are stripped.
 * - Every other field (`service_tier`, `container`, `cache_control`, …) is forwarded at the top level as it
 *   came: Ollama ignores what it does not know, a node agent may not.
 *
 * Content blocks of unknown types, and `redacted_thinking`, are skipped so that a conversation replayed by
 * a newer client still goes through; `anthropicSkippedBlocks` names them for the caller's trace.
 */
import { BadRequestError } from '../../errors';
import { type AnthropicMessageParam, type AnthropicMessagesRequest, isKnownAnthropicBlock } from '../../wire/anthropic';
import type { OllamaChatRequest, OllamaFormat, OllamaOptions, OllamaThink } from '../../wire/ollama';
import { effortToThink, forwardedFields, setGivenOptions } from '../request-fields';
import { raiseThinkingBudget } from '../thinking-budget';
import { anthropicBlocks } from './anthropic-blocks';
import { anthropicSystemPrompt } from './anthropic-system-prompt';
import { isFetchedAnthropicImageUrl } from './from-anthropic-content';
import { fromAnthropicMessages } from './from-anthropic-messages';
import { fromAnthropicTools } from './from-anthropic-tools';

export interface FromAnthropicMessagesRequestOptions {
  /** Images the caller fetched (`anthropicImageUrls`), keyed by the URL exactly as sent, as bare base64. */
  readonly images: ReadonlyMap<string, string>;
  /** Whether the routed model has the `thinking` capability; absent when unknown. */
  readonly thinking?: { readonly capable: boolean };
}

/** Fields translated into something else (or read by the router), so not forwarded as they came. */
const TRANSLATED_FIELDS = new Set([
  'model',
  'messages',
  'system',
  'max_tokens',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'metadata',
  'fallback_models',
]);

/** @see protocols.md §6.2 (request), §2.3 and §2.5 (Ollama chat request and options) */
export function fromAnthropicMessagesRequest(
  request: AnthropicMessagesRequest,
  options: FromAnthropicMessagesRequestOptions,
): OllamaChatRequest {
  const { tools, instruction } = fromAnthropicTools(request);
  const { systemTurns, messages } = fromAnthropicMessages(request.messages, options.images);
  const system = anthropicSystemPrompt({ system: request.system, systemTurns, toolInstruction: instruction });
  const think = thinkOf(request, options.thinking);
  const format = formatOf(request);
  const raise = options.thinking?.capable === true && think !== false && request.thinking?.type !== 'enabled';
  return {
    ...forwardedFields(request, TRANSLATED_FIELDS),
    model: request.model,
    messages: system === undefined ? messages : [{ role: 'system', content: system }, ...messages],
    stream: request.stream === true,
    options: optionsOf(request, raise),
    ...(tools === undefined ? {} : { tools }),
    ...(format === undefined ? {} : { format }),
    ...(think === undefined ? {} : { think }),
  };
}

/**
 * The `http(s)` image URLs the caller must fetch (in order of appearance, tool results and documents
 * included, each with its field) and pass to `fromAnthropicMessagesRequest` as `images`.
 */
export function anthropicImageUrls(request: { readonly messages: readonly AnthropicMessageParam[] }): {
  url: string;
  field: string;
}[] {
  const urls: { url: string; field: string }[] = [];
  for (const { block, field } of anthropicBlocks(request.messages)) {
    if (!isKnownAnthropicBlock(block) || block.type !== 'image' || block.source.type !== 'url') continue;
    if (isFetchedAnthropicImageUrl(block.source.url))
      urls.push({ url: block.source.url, field: `${field}.source.url` });
  }
  return urls;
}

/** The blocks the translation leaves out (unknown types, `redacted_thinking`), by field, for a trace. */
export function anthropicSkippedBlocks(request: {
  readonly messages: readonly AnthropicMessageParam[];
}): { readonly field: string; readonly type: string }[] {
  const skipped: { field: string; type: string }[] = [];
  for (const { block, field } of anthropicBlocks(request.messages)) {
    if (!isKnownAnthropicBlock(block) || block.type === 'redacted_thinking') skipped.push({ field, type: block.type });
  }
  return skipped;
}

function optionsOf(request: AnthropicMessagesRequest, raise: boolean): OllamaOptions {
  const options: Record<string, unknown> = {};
  const mapped: Record<string, unknown> = {
    temperature: request.temperature,
    top_p: request.top_p,
    top_k: request.top_k,
    stop: request.stop_sequences,
    num_predict: raise ? raiseThinkingBudget(request.max_tokens) : request.max_tokens,
  };
  setGivenOptions(options, mapped);
  return options;
}

function thinkOf(
  request: AnthropicMessagesRequest,
  thinking: FromAnthropicMessagesRequestOptions['thinking'],
): OllamaThink | undefined {
  if (thinking?.capable === false) return undefined;
  const effort = request.output_config?.effort;
  const level = effort === undefined || effort === null ? undefined : effortToThink(effort);
  switch (request.thinking?.type) {
    case 'enabled':
      return true;
    case 'disabled':
      return false;
    case 'adaptive':
      return level ?? true;
    case undefined:
      return level;
  }
}

function formatOf(request: AnthropicMessagesRequest): OllamaFormat | undefined {
  const format = request.output_config?.format;
  if (format === undefined || format === null) return undefined;
  if (format.type !== 'json_schema') {
    const field = 'output_config.format.type';
    throw new BadRequestError(`${field}: only json_schema is supported`, field);
  }
  return format.schema ?? 'json';
}
