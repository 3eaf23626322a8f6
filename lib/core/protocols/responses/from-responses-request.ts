/**
 * OpenAI Responses request → Ollama chat request (protocols §4.1 → §2.3, §2.5; ARCHITECTURE.md §3.8).
 * Pure: images come in already fetched, thinking capability comes from the caller; the only throw is a
 * `BadRequestError` naming the field.
 *
 * Where each top-level field goes:
 * - `instructions` → a leading system message; `input` → the messages (`from-responses-input.ts`);
 *   `model`, `stream` → the same fields.
 * - `temperature`, `top_p` → `options.*`, only when sent: the node's model keeps its own defaults (this
 *   API documents none the router should impose); `max_output_tokens`, else `options.num_predict` →
 *   `options.num_predict`, raised for thinking models (`thinking-budget.ts`).
 * - `text.format` → `format`: `json_object` → `"json"`, `json_schema` → its schema (`"json"` when it has
 *   none), `text` → nothing. An Ollama `format` sent alongside is used only when `text.format` is absent.
 * - `tools`, `additional_tools` items and `tool_choice` → `tools` (`from-responses-tools.ts`).
 * - `reasoning.effort` → `think` with the chat mapping (`none` → false, `minimal`/`low` → low, `medium`,
 *   `high`/`xhigh` → high, `max`); an Ollama `think` sent alongside wins. Neither is sent to a model known
 *   to lack the `thinking` capability (Ollama answers 400 to `think` there).
 * - `options`, `keep_alive`: Ollama's own names and meaning, forwarded.
 * - Read by the router, not forwarded: `previous_response_id` (the handler decides whether it can serve
 *   it), `stream_options`, and the router's fields `metadata`, `fallback_models`, `user` (ARCHITECTURE.md §9.2).
 * - 400: state only OpenAI keeps — `conversation`, `prompt` (a stored prompt template), `background: true`.
 * - Every other field (`store`, `include`, `truncation`, `parallel_tool_calls`, `service_tier`, …) is
 *   forwarded at the top level as it came: Ollama ignores what it does not know, a node agent may not.
 */
import { BadRequestError } from '../../errors';
import type { OllamaChatRequest, OllamaFormat, OllamaMessage, OllamaOptions, OllamaThink } from '../../wire/ollama';
import type { ResponsesRequest } from '../../wire/responses';
import { isFetchedImageUrl } from '../openai/from-openai-chat-messages';
import { effortToThink, forwardedFields, setGivenOptions } from '../request-fields';
import { raiseThinkingBudget } from '../thinking-budget';
import { fromResponsesInput, responsesImageUrls } from './from-responses-input';
import { fromResponsesTools } from './from-responses-tools';

export interface FromResponsesRequestOptions {
  /** Images the caller fetched, keyed by the URL exactly as the request spells it, as bare base64. */
  readonly images: ReadonlyMap<string, string>;
  /** Whether the routed model has the `thinking` capability; absent when unknown. */
  readonly thinking?: { readonly capable: boolean };
}

/** Fields translated into something else (or read by the router), so not forwarded as they came. */
const TRANSLATED_FIELDS = new Set([
  'model',
  'input',
  'instructions',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'max_output_tokens',
  'text',
  'format',
  'tools',
  'tool_choice',
  'reasoning',
  'think',
  'options',
  'previous_response_id',
  'conversation',
  'prompt',
  'background',
  'metadata',
  'fallback_models',
  'user',
]);

/** @see protocols.md §4.1 (request), §2.3 and §2.5 (Ollama chat request and options) */
export function fromResponsesRequest(
  request: ResponsesRequest,
  options: FromResponsesRequestOptions,
): OllamaChatRequest {
  rejectStateful(request);
  const think = thinkOf(request, options.thinking);
  const tools = fromResponsesTools(request);
  const format = formatOf(request);
  const thinks = options.thinking?.capable === true && think !== false;
  const nodeOptions = optionsOf(request, thinks);
  return {
    ...forwardedFields(request, TRANSLATED_FIELDS),
    model: request.model,
    messages: messagesOf(request, options.images),
    stream: request.stream === true,
    ...(Object.keys(nodeOptions).length === 0 ? {} : { options: nodeOptions }),
    ...(tools === undefined ? {} : { tools }),
    ...(format === undefined ? {} : { format }),
    ...(think === undefined ? {} : { think }),
  };
}

/**
 * The `http(s)` image URLs the caller must fetch (in order of appearance, each with its field) and pass
 * to `fromResponsesRequest` as `images`; `data:` URIs need no fetching.
 */
export function responsesImageUrlsToFetch(request: ResponsesRequest): { url: string; field: string }[] {
  return responsesImageUrls(request.input).filter(({ url }) => isFetchedImageUrl(url));
}

function rejectStateful(request: ResponsesRequest): void {
  if (request.conversation !== undefined && request.conversation !== null) {
    throw new BadRequestError(
      'conversation: conversations are kept by OpenAI, and the router keeps none; send the whole input',
      'conversation',
    );
  }
  if (request.prompt !== undefined && request.prompt !== null) {
    throw new BadRequestError(
      'prompt: prompt templates are stored by OpenAI, and the router stores none; send instructions and input',
      'prompt',
    );
  }
  if (request.background === true) {
    throw new BadRequestError('background: background responses are not supported; stream instead', 'background');
  }
}

function messagesOf(request: ResponsesRequest, images: ReadonlyMap<string, string>): OllamaMessage[] {
  const input = fromResponsesInput(request.input, images);
  const instructions = request.instructions;
  if (instructions === undefined || instructions === null) return input;
  return [{ role: 'system', content: instructions }, ...input];
}

function optionsOf(request: ResponsesRequest, thinks: boolean): OllamaOptions {
  const options: Record<string, unknown> = { ...request.options };
  const mapped: Record<string, unknown> = {
    temperature: request.temperature,
    top_p: request.top_p,
    num_predict: request.max_output_tokens,
  };
  setGivenOptions(options, mapped);
  const budget = options['num_predict'];
  if (thinks && typeof budget === 'number') options['num_predict'] = raiseThinkingBudget(budget);
  return options;
}

function thinkOf(
  request: ResponsesRequest,
  thinking: FromResponsesRequestOptions['thinking'],
): OllamaThink | undefined {
  if (thinking?.capable === false) return undefined;
  if (request.think !== undefined && request.think !== null) return request.think;
  const effort = request.reasoning?.effort;
  return effort === undefined || effort === null ? undefined : effortToThink(effort);
}

function formatOf(request: ResponsesRequest): OllamaFormat | undefined {
  const format = request.text?.format;
  if (format === undefined || format === null) return request.format ?? undefined;
  switch (format.type) {
    case 'text':
      return undefined;
    case 'json_object':
      return 'json';
    case 'json_schema':
      return format.schema ?? 'json';
  }
}
