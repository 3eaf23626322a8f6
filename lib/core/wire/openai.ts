/**
 * OpenAI Chat Completions on the wire (protocols §3): the request clients send to
 * `/v1/chat/completions` as a zod schema, and the response, stream chunk and error shapes the router
 * writes as TS types. The request is loose at every level (SDKs forward whatever the caller adds, and
 * unknown top-level fields are forwarded to the node); the parts the translator reads are typed, so a
 * wrong type is a 400 naming the field. Names follow openai-node. Pure.
 */
import { type InferLazy, lazySchema } from './lazy-schema';
import { parseWith, type WireParseResult } from './parse-with';
import * as z from './zod';

const text = lazySchema(() => z.nullish(z.string()));
const number = lazySchema(() => z.nullish(z.number()));
const integer = lazySchema(() => z.nullish(z.number().check(z.int())));

const textPartSchema = lazySchema(() => z.looseObject({ type: z.literal('text'), text: z.string() }));

const imagePartSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('image_url'),
    image_url: z.looseObject({
      /** `data:image/…;base64,…` or an `http(s)` URL the caller fetches before translating. */
      url: z.string().check(z.minLength(1)),
      detail: z.nullish(z.enum(['auto', 'low', 'high'])),
    }),
  }),
);

/** Modelled so the translator can answer 400 naming the part: nodes take text and images only. */
const audioPartSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('input_audio'),
    input_audio: z.looseObject({ data: z.string(), format: z.string() }),
  }),
);
const filePartSchema = lazySchema(() => z.looseObject({ type: z.literal('file'), file: z.looseObject({}) }));
const refusalPartSchema = lazySchema(() => z.looseObject({ type: z.literal('refusal'), refusal: z.string() }));

const userPartSchema = lazySchema(() =>
  z.discriminatedUnion('type', [textPartSchema(), imagePartSchema(), audioPartSchema(), filePartSchema()]),
);
const assistantPartSchema = lazySchema(() => z.discriminatedUnion('type', [textPartSchema(), refusalPartSchema()]));

/** `string | Part[]`; the message names both so a bad value says what is expected. */
function contentOf<T extends z.ZodMiniType>(part: T, expected: string) {
  return z.union([z.string(), z.array(part)], { error: `expected a string or an array of ${expected} parts` });
}

const textContent = lazySchema(() => contentOf(textPartSchema(), 'text'));

const toolCallSchema = lazySchema(() =>
  z.looseObject({
    id: z.string(),
    type: z.literal('function'),
    function: z.looseObject({ name: z.string().check(z.minLength(1)), arguments: z.string() }),
  }),
);

const systemMessageSchema = lazySchema(() =>
  z.looseObject({ role: z.literal('system'), content: textContent(), name: text() }),
);
const developerMessageSchema = lazySchema(() =>
  z.looseObject({ role: z.literal('developer'), content: textContent(), name: text() }),
);
const userMessageSchema = lazySchema(() =>
  z.looseObject({
    role: z.literal('user'),
    content: contentOf(userPartSchema(), 'text, image_url'),
    name: text(),
  }),
);
const assistantMessageSchema = lazySchema(() =>
  z.looseObject({
    role: z.literal('assistant'),
    content: z.nullish(contentOf(assistantPartSchema(), 'text, refusal')),
    refusal: text(),
    name: text(),
    tool_calls: z.nullish(z.array(toolCallSchema())),
    /** Earlier reasoning sent back (DeepSeek/vLLM spell it `reasoning_content`, Ollama/OpenRouter `reasoning`). */
    reasoning_content: text(),
    reasoning: text(),
  }),
);
const toolMessageSchema = lazySchema(() =>
  z.looseObject({
    role: z.literal('tool'),
    content: textContent(),
    tool_call_id: z.string(),
  }),
);

export const openAIChatMessageSchema = lazySchema(() =>
  z.discriminatedUnion('role', [
    systemMessageSchema(),
    developerMessageSchema(),
    userMessageSchema(),
    assistantMessageSchema(),
    toolMessageSchema(),
  ]),
);

const functionToolSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('function'),
    function: z.looseObject({
      name: z.string().check(z.minLength(1)),
      description: text(),
      parameters: z.nullish(z.record(z.string(), z.unknown())),
      strict: z.nullish(z.boolean()),
    }),
  }),
);

const toolChoiceSchema = lazySchema(() =>
  z.union([
    z.enum(['none', 'auto', 'required']),
    z.looseObject({
      type: z.literal('function'),
      function: z.looseObject({ name: z.string().check(z.minLength(1)) }),
    }),
  ]),
);

const responseFormatSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('text') }),
    z.looseObject({ type: z.literal('json_object') }),
    z.looseObject({
      type: z.literal('json_schema'),
      json_schema: z.looseObject({
        name: z.string(),
        description: text(),
        schema: z.nullish(z.record(z.string(), z.unknown())),
        strict: z.nullish(z.boolean()),
      }),
    }),
  ]),
);

export const openAIReasoningEffortSchema = lazySchema(() =>
  z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']),
);

/**
 * The fields both OpenAI request styles (chat completions and responses) take beyond OpenAI's own:
 * Ollama's, which OpenAI-SDK users send through `extra_body`, and the router's (ARCHITECTURE.md §9.2), which are
 * never forwarded. Last in each schema, as the parsed body lists them.
 */
export function ollamaAndRouterFields() {
  return {
    options: z.nullish(z.looseObject({ num_predict: integer(), temperature: number() })),
    think: z.nullish(z.union([z.boolean(), z.enum(['low', 'medium', 'high', 'max'])])),
    keep_alive: z.nullish(z.union([z.number(), z.string()])),
    format: z.nullish(z.union([z.literal('json'), z.record(z.string(), z.unknown())])),
    fallback_models: z.nullish(z.array(z.string())),
    // OpenAI types `metadata` as a string map, the router's spec puts an array in `tags`: both are accepted.
    metadata: z.nullish(z.looseObject({ tags: z.nullish(z.union([z.array(z.string()), z.string()])) })),
    user: text(),
  };
}

export const openAIChatRequestSchema = lazySchema(() =>
  z.looseObject({
    model: z.string().check(z.minLength(1, 'model is required')),
    messages: z.nullish(z.array(openAIChatMessageSchema())),
    stream: z.nullish(z.boolean()),
    stream_options: z.nullish(z.looseObject({ include_usage: z.nullish(z.boolean()) })),
    temperature: number(),
    top_p: number(),
    seed: integer(),
    stop: z.nullish(z.union([z.string(), z.array(z.string())])),
    max_tokens: integer(),
    max_completion_tokens: integer(),
    frequency_penalty: number(),
    presence_penalty: number(),
    n: integer(),
    response_format: z.nullish(responseFormatSchema()),
    tools: z.nullish(z.array(functionToolSchema())),
    tool_choice: z.nullish(toolChoiceSchema()),
    parallel_tool_calls: z.nullish(z.boolean()),
    reasoning_effort: z.nullish(openAIReasoningEffortSchema()),
    logprobs: z.nullish(z.boolean()),
    top_logprobs: integer(),
    modalities: z.nullish(z.array(z.string())),
    // Deprecated function calling: typed only so the translator can reject it by name.
    functions: z.nullish(z.array(z.unknown())),
    function_call: z.optional(z.unknown()),
    ...ollamaAndRouterFields(),
  }),
);

export type OpenAIChatRequest = InferLazy<typeof openAIChatRequestSchema>;
export type OpenAIChatMessage = InferLazy<typeof openAIChatMessageSchema>;
export type OpenAIUserContentPart = InferLazy<typeof userPartSchema>;
export type OpenAIChatToolCallParam = InferLazy<typeof toolCallSchema>;
export type OpenAIReasoningEffort = InferLazy<typeof openAIReasoningEffortSchema>;

export function parseOpenAIChatRequest(body: unknown): WireParseResult<OpenAIChatRequest> {
  return parseWith(openAIChatRequestSchema(), body, 'invalid request');
}

// ---------------------------------------------------------------------------------------------------
// What the router writes (protocols §3.2–3.4).

export type OpenAIFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface OpenAIToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface OpenAIUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  /** Present only when the node measured prefix-cache reuse (spec §4.1): 0 = measured, nothing reused. */
  readonly prompt_tokens_details?: { readonly cached_tokens: number };
}

/** Per-token log probabilities, as the node reported them. */
export interface OpenAILogprobs {
  readonly content: readonly unknown[];
}

export interface OpenAIChatCompletionMessage {
  readonly role: 'assistant';
  readonly content: string | null;
  readonly refusal: null;
  readonly tool_calls?: readonly OpenAIToolCall[];
  /** The model's thinking; non-standard (DeepSeek, vLLM and llama.cpp use this name). */
  readonly reasoning_content?: string;
}

export interface OpenAIChatCompletion {
  readonly id: string;
  readonly object: 'chat.completion';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly [
    {
      readonly index: 0;
      readonly message: OpenAIChatCompletionMessage;
      readonly logprobs: OpenAILogprobs | null;
      readonly finish_reason: OpenAIFinishReason;
    },
  ];
  readonly usage: OpenAIUsage;
}

/** A streamed tool call: whole, since Ollama sends each call complete in one chunk. */
export interface OpenAIToolCallDelta {
  readonly index: number;
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface OpenAIChatDelta {
  readonly role?: 'assistant';
  readonly content?: string;
  readonly reasoning_content?: string;
  readonly tool_calls?: readonly OpenAIToolCallDelta[];
}

export interface OpenAIChatChunkChoice {
  readonly index: 0;
  readonly delta: OpenAIChatDelta;
  readonly logprobs: OpenAILogprobs | null;
  readonly finish_reason: OpenAIFinishReason | null;
}

export interface OpenAIChatChunk {
  readonly id: string;
  readonly object: 'chat.completion.chunk';
  readonly created: number;
  readonly model: string;
  /** Empty on the usage chunk. */
  readonly choices: readonly OpenAIChatChunkChoice[];
  /** With `stream_options.include_usage`: `null` on every chunk but the last, which carries it. */
  readonly usage?: OpenAIUsage | null;
}

/** The error envelope (ARCHITECTURE.md §9.1, §9.4), before the first byte as the body and after it in band. */
export const openAIErrorBodySchema = z.lazy(() =>
  z.object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      param: z.nullable(z.string()),
      code: z.nullable(z.string()),
    }),
  }),
);

export type OpenAIErrorBody = z.infer<typeof openAIErrorBodySchema>;

/** An in-band stream failure: `data: {"error": {...}}` (protocols §3.3). */
export type OpenAIStreamError = OpenAIErrorBody;
