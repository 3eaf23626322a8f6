/**
 * Anthropic Messages on the wire (protocols §6): the request clients send to `/v1/messages` (and the
 * `count_tokens` variant, §6.6) as zod schemas, and the message, stream event and error shapes the router
 * writes as TS types. Loose at every level, so what a newer SDK adds passes through; the parts the
 * translator reads are typed, so a wrong type is a 400 naming the field.
 *
 * Content blocks of a type this file does not know are accepted as `{type, ...}` (forward-tolerant: the
 * API adds block types often, and a client replaying a conversation sends back whatever it got); the
 * translator skips them and `anthropicSkippedBlocks` names them. A block of a known type with a wrong
 * shape is a 400 whose message names the field inside it. Names follow @anthropic-ai/sdk. Pure.
 */
import { type InferLazy, lazySchema } from './lazy-schema';
import { parseWith, type WireParseResult } from './parse-with';
import * as z from './zod';

const text = lazySchema(() => z.nullish(z.string()));
const number = lazySchema(() => z.nullish(z.number()));

/**
 * The message of a failed `string | Block[]` (or `Known | Unknown` block) union: the innermost issue of
 * the branch that got past the type check, with its path below the union (`1.source.data: …`), so a
 * bad field deep in a block is named; `expected` when no branch did.
 */
function unionMessage(expected: string) {
  return (issue: z.core.$ZodRawIssue): string => {
    const inner = issue.code === 'invalid_union' ? innermostIssue(issue.errors, []) : undefined;
    if (inner === undefined) return expected;
    return inner.path.length === 0 ? inner.message : `${inner.path.join('.')}: ${inner.message}`;
  };
}

interface InnerIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

function innermostIssue(
  branches: readonly (readonly z.core.$ZodIssue[])[],
  path: readonly PropertyKey[],
): InnerIssue | undefined {
  const firsts = branches.map((branch) => branch[0]).filter((issue) => issue !== undefined);
  const furthest = firsts.find((issue) => !(issue.code === 'invalid_type' && issue.path.length === 0));
  if (furthest === undefined) return undefined;
  const here = [...path, ...furthest.path];
  if (furthest.code === 'invalid_union' && furthest.errors.length > 0) {
    return innermostIssue(furthest.errors, here) ?? { path: here, message: furthest.message };
  }
  return { path: here, message: furthest.message };
}

/** `string | Block[]`, reporting the bad field inside a block rather than "Invalid input". */
function stringOrBlocks<T extends z.ZodMiniType>(block: T, expected: string) {
  return z.union([z.string(), z.array(block)], { error: unionMessage(`expected a string or an array of ${expected}`) });
}

/**
 * A block of one of the `known` types, or a block of a type no level knows (see the header). A block
 * whose type is known elsewhere but not here (a `thinking` block inside a `tool_result`) is a 400, so
 * `isKnownAnthropicBlock` narrows soundly at every level.
 */
function blocksOf<const Known extends readonly [z.core.$ZodTypeDiscriminable, ...z.core.$ZodTypeDiscriminable[]]>(
  known: Known,
) {
  const unknown = z.looseObject({
    type: z
      .string()
      .check(z.refine((type) => !(ANTHROPIC_BLOCK_TYPES as readonly string[]).includes(type), { abort: true })),
  });
  return z.union([z.discriminatedUnion('type', known), unknown], { error: unionMessage('expected a content block') });
}

/** Every block type the translator reads (the rest are skipped). */
export const ANTHROPIC_BLOCK_TYPES = [
  'text',
  'image',
  'document',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
] as const;

const textBlockSchema = lazySchema(() => z.looseObject({ type: z.literal('text'), text: z.string() }));

const base64SourceSchema = lazySchema(() =>
  z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
);
const urlSourceSchema = lazySchema(() =>
  z.looseObject({ type: z.literal('url'), url: z.string().check(z.minLength(1)) }),
);
const fileSourceSchema = lazySchema(() => z.looseObject({ type: z.literal('file'), file_id: z.string() }));

const imageBlockSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('image'),
    source: z.discriminatedUnion('type', [base64SourceSchema(), urlSourceSchema(), fileSourceSchema()]),
  }),
);

/** What a `content` document source holds: text and images. */
const documentContentSchema = lazySchema(() =>
  stringOrBlocks(blocksOf([textBlockSchema(), imageBlockSchema()]), 'text, image blocks'),
);

const documentBlockSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('document'),
    source: z.discriminatedUnion('type', [
      base64SourceSchema(),
      z.looseObject({ type: z.literal('text'), media_type: text(), data: z.string() }),
      z.looseObject({ type: z.literal('content'), content: documentContentSchema() }),
      urlSourceSchema(),
      fileSourceSchema(),
    ]),
    title: text(),
    context: text(),
  }),
);

const toolUseBlockSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('tool_use'),
    id: z.string().check(z.minLength(1)),
    name: z.string().check(z.minLength(1)),
    input: z.nullish(z.record(z.string(), z.unknown())),
  }),
);

const toolResultContentBlockSchema = lazySchema(() =>
  blocksOf([textBlockSchema(), imageBlockSchema(), documentBlockSchema()]),
);

const toolResultBlockSchema = lazySchema(() =>
  z.looseObject({
    type: z.literal('tool_result'),
    tool_use_id: z.string().check(z.minLength(1)),
    content: z.nullish(stringOrBlocks(toolResultContentBlockSchema(), 'content blocks')),
    is_error: z.nullish(z.boolean()),
  }),
);

const thinkingBlockSchema = lazySchema(() =>
  z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: text() }),
);
const redactedThinkingBlockSchema = lazySchema(() =>
  z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
);

const contentBlockSchema = lazySchema(() =>
  blocksOf([
    textBlockSchema(),
    imageBlockSchema(),
    documentBlockSchema(),
    toolUseBlockSchema(),
    toolResultBlockSchema(),
    thinkingBlockSchema(),
    redactedThinkingBlockSchema(),
  ]),
);

const messageContent = lazySchema(() => stringOrBlocks(contentBlockSchema(), 'content blocks'));
const systemContent = lazySchema(() => stringOrBlocks(textBlockSchema(), 'text blocks'));

export const anthropicMessageSchema = lazySchema(() =>
  z.discriminatedUnion('role', [
    z.looseObject({ role: z.literal('user'), content: messageContent() }),
    z.looseObject({ role: z.literal('assistant'), content: messageContent() }),
    /** Newer SDK types allow system turns inside `messages` (protocols §6.2): folded into the system prompt. */
    z.looseObject({ role: z.literal('system'), content: systemContent() }),
  ]),
);

const toolSchema = lazySchema(() =>
  z.looseObject({
    /** Absent or `custom` for a client tool; anything else is a server tool (`web_search_20250305`, …). */
    type: text(),
    name: z.string().check(z.minLength(1)),
    description: text(),
    input_schema: z.nullish(z.record(z.string(), z.unknown())),
  }),
);

const toolChoiceSchema = lazySchema(() => {
  const parallel = { disable_parallel_tool_use: z.nullish(z.boolean()) };
  return z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('auto'), ...parallel }),
    z.looseObject({ type: z.literal('any'), ...parallel }),
    z.looseObject({ type: z.literal('tool'), name: z.string().check(z.minLength(1)), ...parallel }),
    z.looseObject({ type: z.literal('none') }),
  ]);
});

const thinkingSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().check(z.int()) }),
    z.looseObject({ type: z.literal('disabled') }),
    z.looseObject({ type: z.literal('adaptive'), display: text() }),
  ]),
);

export const anthropicEffortSchema = lazySchema(() => z.enum(['low', 'medium', 'high', 'xhigh', 'max']));

const outputConfigSchema = lazySchema(() =>
  z.looseObject({
    effort: z.nullish(anthropicEffortSchema()),
    /** Structured output: `{type: "json_schema", schema}`. */
    format: z.nullish(z.looseObject({ type: z.string(), schema: z.nullish(z.record(z.string(), z.unknown())) })),
  }),
);

/** Everything but `max_tokens`: the body of `count_tokens` (protocols §6.6). */
function commonRequestFields() {
  return {
    model: z.string().check(z.minLength(1, 'model is required')),
    messages: z.array(anthropicMessageSchema()).check(z.minLength(1, 'at least one message is required')),
    system: z.nullish(systemContent()),
    tools: z.nullish(z.array(toolSchema())),
    tool_choice: z.nullish(toolChoiceSchema()),
    thinking: z.nullish(thinkingSchema()),
    output_config: z.nullish(outputConfigSchema()),
    // The router's own fields (ARCHITECTURE.md §9.2), never forwarded. `tags` is the router's; `user_id` is Anthropic's
    // and becomes the `user:` tag, as `user` does on the other families.
    fallback_models: z.nullish(z.array(z.string())),
    metadata: z.nullish(
      z.looseObject({ user_id: text(), tags: z.nullish(z.union([z.array(z.string()), z.string()])) }),
    ),
  };
}

export const anthropicMessagesRequestSchema = lazySchema(() =>
  z.looseObject({
    ...commonRequestFields(),
    /** Required by Anthropic (400 without it): there is no default to fall back on. */
    max_tokens: z
      .number({ error: (issue) => (issue.input === undefined ? 'max_tokens is required' : undefined) })
      .check(z.int(), z.gte(1)),
    stop_sequences: z.nullish(z.array(z.string())),
    stream: z.nullish(z.boolean()),
    temperature: number(),
    top_p: number(),
    top_k: z.nullish(z.number().check(z.int())),
  }),
);

export const anthropicCountTokensRequestSchema = lazySchema(() => z.looseObject(commonRequestFields()));

export type AnthropicMessagesRequest = InferLazy<typeof anthropicMessagesRequestSchema>;
export type AnthropicCountTokensRequest = InferLazy<typeof anthropicCountTokensRequestSchema>;
export type AnthropicMessageParam = InferLazy<typeof anthropicMessageSchema>;
export type AnthropicEffort = InferLazy<typeof anthropicEffortSchema>;
export type AnthropicToolParam = InferLazy<typeof toolSchema>;
export type AnthropicToolChoice = InferLazy<typeof toolChoiceSchema>;
export type AnthropicThinkingParam = InferLazy<typeof thinkingSchema>;
export type AnthropicTextBlockParam = InferLazy<typeof textBlockSchema>;
export type AnthropicImageBlockParam = InferLazy<typeof imageBlockSchema>;
export type AnthropicDocumentBlockParam = InferLazy<typeof documentBlockSchema>;
export type AnthropicToolResultBlockParam = InferLazy<typeof toolResultBlockSchema>;
/** A block inside a `tool_result`'s content. */
export type AnthropicToolResultContentBlockParam = InferLazy<typeof toolResultContentBlockSchema>;
/** A block inside a document's `content` source. */
export type AnthropicDocumentContentBlockParam = Exclude<InferLazy<typeof documentContentSchema>, string>[number];
/** A request block: one of the known types, or a block of another type (skipped by the translator). */
export type AnthropicContentBlockParam = InferLazy<typeof contentBlockSchema>;
export type AnthropicKnownBlockParam = Extract<AnthropicContentBlockParam, { type: AnthropicBlockType }>;
export type AnthropicBlockType = (typeof ANTHROPIC_BLOCK_TYPES)[number];

/**
 * Narrows a parsed request block (at any level: message content, `tool_result` content, document content)
 * to the types its level knows; the schema keeps blocks of other types off the known names.
 */
export function isKnownAnthropicBlock<B extends { readonly type: string }>(
  block: B,
): block is Extract<B, { readonly type: AnthropicBlockType }> {
  return (ANTHROPIC_BLOCK_TYPES as readonly string[]).includes(block.type);
}

export function parseAnthropicMessagesRequest(body: unknown): WireParseResult<AnthropicMessagesRequest> {
  return parseWith(anthropicMessagesRequestSchema(), body, 'invalid request');
}

export function parseAnthropicCountTokensRequest(body: unknown): WireParseResult<AnthropicCountTokensRequest> {
  return parseWith(anthropicCountTokensRequestSchema(), body, 'invalid request');
}

// ---------------------------------------------------------------------------------------------------
// What the router writes (protocols §6.3–6.5).

export type AnthropicStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

export interface AnthropicTextBlock {
  readonly type: 'text';
  readonly text: string;
}

/** `signature`: the router's (`thinking-signature.ts`); nodes do not sign their thinking. */
export interface AnthropicThinkingBlock {
  readonly type: 'thinking';
  readonly thinking: string;
  readonly signature: string;
}

export interface AnthropicToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

export type AnthropicContentBlock = AnthropicTextBlock | AnthropicThinkingBlock | AnthropicToolUseBlock;

export interface AnthropicUsage {
  /** Prompt tokens not read from the prefix cache (Anthropic counts cached ones apart). */
  readonly input_tokens: number;
  /** Everything generated, thinking included. */
  readonly output_tokens: number;
  /** Present only when the node measured prefix-cache reuse (spec §4.1): 0 = measured, nothing reused. */
  readonly cache_read_input_tokens?: number;
}

export interface AnthropicMessage {
  readonly id: string;
  readonly type: 'message';
  readonly role: 'assistant';
  readonly model: string;
  readonly content: readonly AnthropicContentBlock[];
  /** `null` only in `message_start`. */
  readonly stop_reason: AnthropicStopReason | null;
  readonly stop_sequence: string | null;
  readonly usage: AnthropicUsage;
}

export type AnthropicContentBlockDelta =
  | { readonly type: 'text_delta'; readonly text: string }
  | { readonly type: 'thinking_delta'; readonly thinking: string }
  | { readonly type: 'signature_delta'; readonly signature: string }
  | { readonly type: 'input_json_delta'; readonly partial_json: string };

export interface AnthropicErrorDetail {
  readonly type: string;
  readonly message: string;
}

/** One event of a stream (protocols §6.4); the SSE event name is its `type`. */
export type AnthropicStreamEvent =
  | { readonly type: 'message_start'; readonly message: AnthropicMessage }
  | { readonly type: 'content_block_start'; readonly index: number; readonly content_block: AnthropicContentBlock }
  | { readonly type: 'content_block_delta'; readonly index: number; readonly delta: AnthropicContentBlockDelta }
  | { readonly type: 'content_block_stop'; readonly index: number }
  | {
      readonly type: 'message_delta';
      readonly delta: { readonly stop_reason: AnthropicStopReason; readonly stop_sequence: string | null };
      /** Cumulative; the SDK overwrites the `message_start` values with these. */
      readonly usage: AnthropicUsage;
    }
  | { readonly type: 'message_stop' }
  | { readonly type: 'ping' }
  | { readonly type: 'error'; readonly error: AnthropicErrorDetail };

export type AnthropicErrorEvent = Extract<AnthropicStreamEvent, { type: 'error' }>;

/** The error envelope (ARCHITECTURE.md §9.1), before the first byte as the body and after it as the `error` event. */
export const anthropicErrorBodySchema = z.lazy(() =>
  z.object({
    type: z.literal('error'),
    error: z.object({ type: z.string(), message: z.string() }),
  }),
);

export type AnthropicErrorBody = z.infer<typeof anthropicErrorBodySchema>;
