/**
 * OpenAI Responses on the wire (protocols §4): the request clients send to `/v1/responses` as a zod
 * schema, and the response object and output items the router writes as TS types (the stream events
 * are in `protocols/responses/responses-stream-event.ts`). The request is loose at every level (SDKs and
 * agents forward whatever they add; unknown top-level fields are forwarded to the node); the parts the
 * translator reads are typed, so a wrong type is a 400 naming the field. Names follow openai-node 7.55.
 * Pure.
 */
import { type InferLazy, lazySchema } from './lazy-schema';
import { ollamaAndRouterFields, openAIReasoningEffortSchema } from './openai';
import { parseWith, type WireParseResult } from './parse-with';
import * as z from './zod';

const text = lazySchema(() => z.nullish(z.string()));
const number = lazySchema(() => z.nullish(z.number()));
const integer = lazySchema(() => z.nullish(z.number().check(z.int())));

/**
 * Tools OpenAI runs itself (`web_search`, `file_search`, `code_interpreter`, `image_generation`, `mcp`,
 * `tool_search`, …) or that its own models call in a shape of their own (`shell`, `apply_patch`,
 * `computer*`); the router runs none of them and the model sees none of them. `local_shell`, which
 * Codex runs itself, is not among them: it is offered (`localShellToolSchema`).
 */
export const HOSTED_TOOL_TYPES = [
  'file_search',
  'web_search',
  'web_search_2025_08_26',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'computer',
  'computer_use',
  'computer_use_preview',
  'code_interpreter',
  'image_generation',
  'mcp',
  'shell',
  'apply_patch',
  'tool_search',
  'programmatic_tool_calling',
] as const;

// ---------------------------------------------------------------------------------------------------
// Content parts.

/** Text parts: `input_text` from users, `output_text` echoed from earlier replies; `text` and
 * `summary_text` are what looser clients send (the reference accepted both). */
const textPartSchema = lazySchema(() =>
  z.looseObject({
    type: z.enum(['input_text', 'output_text', 'text', 'summary_text']),
    text: z.string(),
  }),
);
const refusalPartSchema = lazySchema(() => z.looseObject({ type: z.literal('refusal'), refusal: z.string() }));
const imagePartSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('input_image'),
    /** `data:image/…;base64,…` or an `http(s)` URL the caller fetches before translating. */
    image_url: text(),
    /** An OpenAI file store id: the router has no file store (400). */
    file_id: text(),
    detail: text(),
  }),
);
/** Modelled so the translator can answer 400 naming the part: nodes take text and images only. */
const filePartSchema = lazySchema(() => z.looseObject({ type: z.literal('input_file') }));

const messagePartSchema = lazySchema(() =>
  z.discriminatedUnion('type', [textPartSchema(), refusalPartSchema(), imagePartSchema(), filePartSchema()]),
);
const outputPartSchema = lazySchema(() =>
  z.discriminatedUnion('type', [textPartSchema(), imagePartSchema(), filePartSchema()]),
);

/** `string | Part[]`; the message names both so a bad value says what is expected. */
function contentOf<T extends z.ZodMiniType>(part: T, expected: string) {
  return z.union([z.string(), z.array(part)], { error: `expected a string or an array of ${expected} parts` });
}

// ---------------------------------------------------------------------------------------------------
// Tools.

const functionToolSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('function'),
    name: z.string().check(z.minLength(1)),
    description: text(),
    parameters: z.nullish(z.record(z.string(), z.unknown())),
    strict: z.nullish(z.boolean()),
  }),
);

/** A free-form tool (Codex's `apply_patch`): the model's input is text, optionally under a grammar. */
const customToolSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('custom'),
    name: z.string().check(z.minLength(1)),
    description: text(),
    format: z.nullish(
      z.discriminatedUnion('type', [
        z.looseObject({ type: z.literal('text') }),
        z.looseObject({ type: z.literal('grammar'), syntax: z.string(), definition: z.string() }),
      ]),
    ),
  }),
);

const hostedToolSchema = lazySchema(() => z.looseObject({ type: z.enum(HOSTED_TOOL_TYPES) }));

/** A shell the client runs (Codex does): the model's call is a `local_shell_call` with an `exec` action. */
const localShellToolSchema = lazySchema(() => z.looseObject({ type: z.literal('local_shell') }));

/**
 * A group of the client's own tools under one name (Codex's `multi_agent_v1`): the model calls
 * `spawn_agent` and the call item says `namespace: "multi_agent_v1"`.
 */
const namespaceToolSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('namespace'),
    name: z.string().check(z.minLength(1)),
    description: text(),
    tools: z.array(
      z.discriminatedUnion('type', [functionToolSchema(), customToolSchema()], {
        error: (issue) => (issue.code === 'invalid_union' ? 'expected a function or custom tool' : undefined),
      }),
    ),
  }),
);

export const responsesToolSchema = lazySchema(() =>
  z.discriminatedUnion(
    'type',
    [functionToolSchema(), customToolSchema(), namespaceToolSchema(), localShellToolSchema(), hostedToolSchema()],
    {
      error: (issue) =>
        issue.code === 'invalid_union'
          ? 'expected a function, custom, namespace or local_shell tool (or a hosted tool type)'
          : undefined,
    },
  ),
);

/** `namespace` names the group of a namespaced tool. */
const namedChoice = <T extends 'function' | 'custom'>(type: T) =>
  z.looseObject({ type: z.literal(type), name: z.string().check(z.minLength(1)), namespace: text() });

const toolChoiceSchema = lazySchema(() =>
  z.union(
    [
      z.enum(['none', 'auto', 'required']),
      z.discriminatedUnion('type', [
        namedChoice('function'),
        namedChoice('custom'),
        z.looseObject({
          type: z.literal('allowed_tools'),
          mode: z.enum(['auto', 'required']),
          tools: z.array(z.looseObject({ type: z.string(), name: text(), namespace: text() })),
        }),
        z.looseObject({ type: z.literal('local_shell') }),
        z.looseObject({ type: z.enum(HOSTED_TOOL_TYPES) }),
      ]),
    ],
    { error: 'expected none, auto, required, or a function, custom, allowed_tools, local_shell or hosted tool choice' },
  ),
);

// ---------------------------------------------------------------------------------------------------
// Input items.

const messageItemSchema = lazySchema(() =>
  z.looseObject({
    type: z.optional(z.literal('message')),
    role: z.enum(['user', 'assistant', 'system', 'developer']),
    content: contentOf(messagePartSchema(), 'input_text, output_text, input_image, refusal'),
  }),
);

const functionCallItemSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('function_call'),
    call_id: z.string(),
    name: z.string().check(z.minLength(1)),
    /** The namespace tool the function belongs to, as the router wrote it on the call. */
    namespace: text(),
    /** A JSON string, as the model produced it. */
    arguments: z.string(),
    id: text(),
  }),
);

const outputContent = lazySchema(() => contentOf(outputPartSchema(), 'input_text, input_image'));

const functionCallOutputItemSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('function_call_output'),
    call_id: z.string(),
    output: outputContent(),
  }),
);

const customToolCallItemSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('custom_tool_call'),
    call_id: z.string(),
    name: z.string().check(z.minLength(1)),
    namespace: text(),
    input: z.string(),
    id: text(),
  }),
);

const customToolCallOutputItemSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('custom_tool_call_output'),
    call_id: z.string(),
    output: outputContent(),
  }),
);

/** A `local_shell` call the router wrote, sent back; its output comes as a `function_call_output`. */
const localShellCallItemSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('local_shell_call'),
    call_id: z.string(),
    action: z.looseObject({
      type: z.literal('exec'),
      command: z.array(z.string()),
      timeout_ms: integer(),
      working_directory: text(),
    }),
    id: text(),
  }),
);

/** Earlier thinking sent back: the summary the router wrote, or raw `reasoning_text` content. */
const reasoningItemSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('reasoning'),
    summary: z.nullish(z.array(z.looseObject({ text: z.string() }))),
    content: z.nullish(z.array(z.looseObject({ text: z.string() }))),
  }),
);

/** A pointer to an item OpenAI stored: modelled so the translator can answer 400 naming it. */
const itemReferenceSchema = lazySchema(() => z.looseObject({ type: z.literal('item_reference'), id: z.string() }));

/** More tools, sent as an input item (what Codex does; anchor §3.9). */
const additionalToolsItemSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('additional_tools'),
    tools: z.array(responsesToolSchema()),
  }),
);

export const RESPONSES_INPUT_ITEM_TYPES = [
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'reasoning',
  'additional_tools',
] as const;

export const responsesInputItemSchema = lazySchema(() =>
  z.discriminatedUnion(
    'type',
    [
      messageItemSchema(),
      functionCallItemSchema(),
      functionCallOutputItemSchema(),
      customToolCallItemSchema(),
      customToolCallOutputItemSchema(),
      localShellCallItemSchema(),
      reasoningItemSchema(),
      itemReferenceSchema(),
      additionalToolsItemSchema(),
    ],
    {
      error: (issue) =>
        issue.code === 'invalid_union'
          ? `unsupported input item type; expected one of ${RESPONSES_INPUT_ITEM_TYPES.join(', ')}`
          : undefined,
    },
  ),
);

// ---------------------------------------------------------------------------------------------------
// The request.

const textFormatSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('text') }),
    z.looseObject({ type: z.literal('json_object') }),
    z.looseObject({
      type: z.literal('json_schema'),
      name: text(),
      description: text(),
      schema: z.nullish(z.record(z.string(), z.unknown())),
      strict: z.nullish(z.boolean()),
    }),
  ]),
);

/** Every field but `input`, shared by the two request schemas below. */
function requestFields() {
  return {
    model: z.string().check(z.minLength(1, 'model is required')),
    instructions: text(),
    stream: z.nullish(z.boolean()),
    temperature: number(),
    top_p: number(),
    max_output_tokens: integer(),
    tools: z.nullish(z.array(responsesToolSchema())),
    tool_choice: z.nullish(toolChoiceSchema()),
    parallel_tool_calls: z.nullish(z.boolean()),
    text: z.nullish(z.looseObject({ format: z.nullish(textFormatSchema()) })),
    reasoning: z.nullish(z.looseObject({ effort: z.nullish(openAIReasoningEffortSchema()), summary: text() })),
    truncation: z.nullish(z.enum(['auto', 'disabled'])),
    store: z.nullish(z.boolean()),
    /** State the router may or may not keep: the handler decides; the translator ignores it. */
    previous_response_id: text(),
    // State only OpenAI keeps: typed only so the translator can reject them by name.
    conversation: z.optional(z.unknown()),
    prompt: z.optional(z.unknown()),
    background: z.nullish(z.boolean()),
    ...ollamaAndRouterFields(),
  };
}

export const responsesRequestSchema = lazySchema(() =>
  z.looseObject({
    ...requestFields(),
    input: z.nullish(z.union([z.string(), z.array(responsesInputItemSchema())])),
  }),
);

/** The same request with `input` an array, so a bad item is reported at its own path (`input.3.call_id`). */
const itemsRequestSchema = lazySchema(() =>
  z.looseObject({ ...requestFields(), input: z.array(responsesInputItemSchema()) }),
);

export type ResponsesRequest = InferLazy<typeof responsesRequestSchema>;
export type ResponsesInputItem = InferLazy<typeof responsesInputItemSchema>;
export type ResponsesMessagePart = InferLazy<typeof messagePartSchema>;
export type ResponsesOutputPart = InferLazy<typeof outputPartSchema>;
export type ResponsesTool = InferLazy<typeof responsesToolSchema>;
export type ResponsesToolChoice = InferLazy<typeof toolChoiceSchema>;

export function parseResponsesRequest(body: unknown): WireParseResult<ResponsesRequest> {
  const itemized = typeof body === 'object' && body !== null && 'input' in body && Array.isArray(body.input);
  return parseWith(itemized ? itemsRequestSchema() : responsesRequestSchema(), body, 'invalid request');
}

/** Responses stream when asked to (`stream: true`); OpenAI's default is one object. */
export function responsesStreamRequested(request: Pick<ResponsesRequest, 'stream'>): boolean {
  return request.stream === true;
}

// ---------------------------------------------------------------------------------------------------
// What the router writes (protocols §4.2).

export type ResponsesStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';
export type ResponsesItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface ResponsesOutputText {
  readonly type: 'output_text';
  readonly text: string;
  readonly annotations: readonly never[];
  readonly logprobs: readonly never[];
}

export interface ResponsesSummaryText {
  readonly type: 'summary_text';
  readonly text: string;
}

export interface ResponsesMessageItem {
  readonly id: string;
  readonly type: 'message';
  readonly status: ResponsesItemStatus;
  readonly role: 'assistant';
  readonly content: readonly ResponsesOutputText[];
}

/** The model's thinking, whole, as one summary part (what Codex and the SDK's helpers show). */
export interface ResponsesReasoningItem {
  readonly id: string;
  readonly type: 'reasoning';
  readonly summary: readonly ResponsesSummaryText[];
}

export interface ResponsesFunctionCallItem {
  readonly id: string;
  readonly type: 'function_call';
  readonly status: ResponsesItemStatus;
  readonly call_id: string;
  readonly name: string;
  /** The namespace tool `name` belongs to; absent for a top-level tool. */
  readonly namespace?: string;
  /** A JSON string. */
  readonly arguments: string;
}

export interface ResponsesCustomToolCallItem {
  readonly id: string;
  readonly type: 'custom_tool_call';
  readonly call_id: string;
  readonly name: string;
  /** The namespace tool `name` belongs to; absent for a top-level tool. */
  readonly namespace?: string;
  readonly input: string;
}

/** A command for the client's shell (`local_shell` tool): Codex runs `action.command` and answers with a `function_call_output`. */
export interface ResponsesLocalShellCallItem {
  readonly id: string;
  readonly type: 'local_shell_call';
  readonly status: ResponsesItemStatus;
  readonly call_id: string;
  readonly action: {
    readonly type: 'exec';
    readonly command: readonly string[];
    readonly timeout_ms: number | null;
    readonly working_directory: string | null;
    readonly env: Readonly<Record<string, string>>;
    readonly user: string | null;
  };
}

export type ResponsesCallItem = ResponsesFunctionCallItem | ResponsesCustomToolCallItem | ResponsesLocalShellCallItem;

export type ResponsesOutputItem = ResponsesMessageItem | ResponsesReasoningItem | ResponsesCallItem;

export interface ResponsesUsage {
  readonly input_tokens: number;
  /** Present only when the node measured prefix-cache reuse (spec §4.1): 0 = measured, nothing reused. */
  readonly input_tokens_details?: { readonly cached_tokens: number };
  readonly output_tokens: number;
  readonly output_tokens_details: { readonly reasoning_tokens: number };
  readonly total_tokens: number;
}

export interface ResponsesError {
  readonly code: 'server_error' | 'rate_limit_exceeded' | 'invalid_prompt';
  readonly message: string;
}

/** The response object: the non-streaming body, and the `response` of every lifecycle event. */
export interface ResponsesResponse {
  readonly id: string;
  readonly object: 'response';
  readonly created_at: number;
  readonly status: ResponsesStatus;
  readonly completed_at: number | null;
  readonly error: ResponsesError | null;
  readonly incomplete_details: { readonly reason: 'max_output_tokens' } | null;
  readonly instructions: string | null;
  readonly max_output_tokens: number | null;
  readonly model: string;
  readonly output: readonly ResponsesOutputItem[];
  readonly parallel_tool_calls: boolean;
  readonly previous_response_id: string | null;
  readonly reasoning: NonNullable<ResponsesRequest['reasoning']> | null;
  readonly store: boolean;
  readonly temperature: number | null;
  readonly text: NonNullable<ResponsesRequest['text']>;
  readonly tool_choice: ResponsesToolChoice;
  readonly tools: readonly ResponsesTool[];
  readonly top_p: number | null;
  readonly truncation: 'auto' | 'disabled';
  /** `null` until the reply is complete. */
  readonly usage: ResponsesUsage | null;
  readonly metadata: Readonly<Record<string, unknown>>;
}
