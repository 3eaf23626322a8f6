/**
 * OpenAI Chat Completions request → Ollama chat request (protocols §3.1 → §2.3, §2.5; ARCHITECTURE.md §3.8).
 * Pure: images come in already fetched, thinking capability comes from the caller; the only throw is a
 * `BadRequestError` naming the field.
 *
 * Where each top-level field goes:
 * - `model`, `messages`, `stream` → the same fields (`developer` → `system`; content parts flattened:
 *   text parts joined with "\n", `image_url` → `images` as bare base64; `input_audio` and `file` → 400).
 * - `temperature` (0.7 when absent or null; an explicit value, 0 included, is kept), `top_p`, `seed`,
 *   `frequency_penalty`, `presence_penalty`, `stop` (a string becomes a one-item list) → `options.*`;
 *   `max_completion_tokens`, else `max_tokens`, else `options.num_predict` → `options.num_predict`,
 *   raised for thinking models (`thinking-budget.ts`).
 * - `response_format` → `format`: `json_object` → `"json"`, `json_schema` → its schema (`"json"` when it has
 *   none), `text` → nothing. An Ollama `format` sent alongside is used only when `response_format` is absent.
 * - `tools` → `tools` (same shape, forwarded whole); `tool_choice`: `auto`/`required` → tools as they are
 *   (Ollama cannot force a call), `none` → no tools sent, `{function: {name}}` → only that tool sent.
 * - `reasoning_effort` → `think` (`none` → false, `minimal`/`low` → low, `medium`, `high`/`xhigh` → high,
 *   `max`); an Ollama `think` sent alongside wins. Neither is sent to a model known to lack the
 *   `thinking` capability (Ollama answers 400 to `think` there; OpenAI models without reasoning ignore it).
 * - `options`, `keep_alive`, `logprobs`, `top_logprobs`: Ollama's own names and meaning, forwarded.
 * - `stream_options` is read by the router (usage chunk); `metadata`, `fallback_models`, `user` are the
 *   router's fields and are stripped (ARCHITECTURE.md §9.2).
 * - 400: `n` other than 1, the deprecated `functions`/`function_call`, `modalities` asking for audio.
 * - Every other field (`store`, `service_tier`, `parallel_tool_calls`, `logit_bias`, …) is forwarded at the
 *   top level as it came: Ollama ignores what it does not know, a node agent may not.
 */
import { BadRequestError } from '../../errors';
import { echoed } from '../../wire/echoed';
import type { OllamaChatRequest, OllamaFormat, OllamaOptions, OllamaThink, OllamaTool } from '../../wire/ollama';
import type { OpenAIChatRequest } from '../../wire/openai';
import { effortToThink, forwardedFields, setGivenOptions } from '../request-fields';
import { raiseThinkingBudget } from '../thinking-budget';
import { fromOpenAIChatMessages, isFetchedImageUrl, openAIImageUrls } from './from-openai-chat-messages';

export interface FromOpenAIChatRequestOptions {
  /** Images the caller fetched, keyed by the URL exactly as the request spells it, as bare base64. */
  readonly images: ReadonlyMap<string, string>;
  /** Whether the routed model has the `thinking` capability; absent when unknown. */
  readonly thinking?: { readonly capable: boolean };
}

/** The default sampling temperature of the chat-completions interface (spec §4.2). */
export const OPENAI_DEFAULT_TEMPERATURE = 0.7;

/** Fields translated into something else (or read by the router), so not forwarded as they came. */
const TRANSLATED_FIELDS = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'seed',
  'stop',
  'max_tokens',
  'max_completion_tokens',
  'frequency_penalty',
  'presence_penalty',
  'response_format',
  'format',
  'tools',
  'tool_choice',
  'reasoning_effort',
  'think',
  'options',
  'metadata',
  'fallback_models',
  'user',
]);

/** @see protocols.md §3.1 (request), §2.3 and §2.5 (Ollama chat request and options) */
export function fromOpenAIChatRequest(
  request: OpenAIChatRequest,
  options: FromOpenAIChatRequestOptions,
): OllamaChatRequest {
  rejectUnsupported(request);
  const think = thinkOf(request, options.thinking);
  const tools = toolsOf(request);
  const format = formatOf(request);
  const thinks = options.thinking?.capable === true && think !== false;
  return {
    ...forwardedFields(request, TRANSLATED_FIELDS),
    model: request.model,
    messages: fromOpenAIChatMessages(request.messages ?? [], options.images),
    stream: request.stream === true,
    options: optionsOf(request, thinks),
    ...(tools === undefined ? {} : { tools }),
    ...(format === undefined ? {} : { format }),
    ...(think === undefined ? {} : { think }),
  };
}

/**
 * The `http(s)` image URLs the caller must fetch (in order of appearance, each with its field) and pass
 * to `fromOpenAIChatRequest` as `images`; `data:` URIs need no fetching.
 */
export function imageUrlsToFetch(request: OpenAIChatRequest): { url: string; field: string }[] {
  return openAIImageUrls(request.messages ?? []).filter(({ url }) => isFetchedImageUrl(url));
}

function rejectUnsupported(request: OpenAIChatRequest): void {
  if (request.n !== undefined && request.n !== null && request.n !== 1) {
    throw new BadRequestError('n: only one choice per request is supported', 'n');
  }
  if (request.functions !== undefined && request.functions !== null) {
    throw new BadRequestError('functions: deprecated function calling is not supported; use tools', 'functions');
  }
  if (request.function_call !== undefined && request.function_call !== null) {
    throw new BadRequestError(
      'function_call: deprecated function calling is not supported; use tool_choice',
      'function_call',
    );
  }
  if (request.modalities?.includes('audio') === true) {
    throw new BadRequestError('modalities: audio output is not supported', 'modalities');
  }
}

function optionsOf(request: OpenAIChatRequest, thinks: boolean): OllamaOptions {
  const options: Record<string, unknown> = { ...request.options };
  const mapped: Record<string, unknown> = {
    temperature: request.temperature,
    top_p: request.top_p,
    seed: request.seed,
    frequency_penalty: request.frequency_penalty,
    presence_penalty: request.presence_penalty,
    stop: typeof request.stop === 'string' ? [request.stop] : request.stop,
    num_predict: request.max_completion_tokens ?? request.max_tokens,
  };
  setGivenOptions(options, mapped);
  if (options['temperature'] === undefined || options['temperature'] === null) {
    options['temperature'] = OPENAI_DEFAULT_TEMPERATURE;
  }
  const budget = options['num_predict'];
  if (thinks && typeof budget === 'number') options['num_predict'] = raiseThinkingBudget(budget);
  return options;
}

function thinkOf(
  request: OpenAIChatRequest,
  thinking: FromOpenAIChatRequestOptions['thinking'],
): OllamaThink | undefined {
  if (thinking?.capable === false) return undefined;
  if (request.think !== undefined && request.think !== null) return request.think;
  if (request.reasoning_effort !== undefined && request.reasoning_effort !== null) {
    return effortToThink(request.reasoning_effort);
  }
  return undefined;
}

function toolsOf(request: OpenAIChatRequest): OllamaTool[] | undefined {
  const { tools, tool_choice: choice } = request;
  if (tools === undefined || tools === null || choice === 'none') return undefined;
  if (typeof choice !== 'object' || choice === null) return [...tools];
  const named = tools.filter((tool) => tool.function.name === choice.function.name);
  if (named.length === 0) {
    const field = 'tool_choice.function.name';
    throw new BadRequestError(
      `${field}: no tool named ${JSON.stringify(echoed(choice.function.name))} in tools`,
      field,
    );
  }
  return named;
}

function formatOf(request: OpenAIChatRequest): OllamaFormat | undefined {
  const responseFormat = request.response_format;
  if (responseFormat === undefined || responseFormat === null) return request.format ?? undefined;
  switch (responseFormat.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return 'json';
    case 'json_schema':
      return responseFormat.json_schema.schema ?? 'json';
  }
}
