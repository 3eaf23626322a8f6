/**
 * Ollama chat and generate on the wire (protocols §2.3–2.5; ARCHITECTURE.md §3.8: Ollama chat is the
 * canonical request). Three kinds of thing live here:
 * - what Ollama clients send to `/api/chat` and `/api/generate`: zod schemas, loose, so every field a
 *   newer Ollama understands is forwarded untouched; only the fields the router reads are typed;
 * - what a node streams back: one schema per NDJSON line, minimal and `nullish` so a node adding or
 *   omitting fields never breaks us (Go drops zero metrics: `omitempty`);
 * - what the router sends to nodes: TS interfaces (`OllamaChatRequest`, …).
 * Pure.
 */
import { type InferLazy, lazySchema } from './lazy-schema';
import {
  isPlainOllamaChatChunk,
  isPlainOllamaChatRequest,
  isPlainOllamaGenerateChunk,
  isPlainOllamaGenerateRequest,
} from './ollama-shape';
import { parseWith, type WireParseResult } from './parse-with';
import * as z from './zod';

const text = lazySchema(() => z.nullish(z.string()));
const number = lazySchema(() => z.nullish(z.number()));

/** `options` as clients send it: the router reads `num_predict`, `num_ctx` and `temperature`. */
const ollamaOptionsSchema = lazySchema(() =>
  z.looseObject({
    num_predict: z.nullish(z.number().check(z.int())),
    num_ctx: z.nullish(z.number().check(z.int())),
    temperature: number(),
  }),
);

/** Only what the router reads (prompt size, images); the rest of a message is Ollama's to judge. */
const ollamaClientMessageSchema = lazySchema(() =>
  z.looseObject({
    role: z.string(),
    content: text(),
    images: z.nullish(z.array(z.string())),
  }),
);

/** The router's own fields (ARCHITECTURE.md §9.2): read for tags and fallbacks, stripped before forwarding. */
function routerFields() {
  return {
    fallback_models: z.nullish(z.array(z.string())),
    // The spec puts an array in `tags`; OpenAI-minded clients send a string map: both are accepted.
    metadata: z.nullish(z.looseObject({ tags: z.nullish(z.union([z.array(z.string()), z.string()])) })),
    user: text(),
  };
}

/** Shared by chat and generate (protocols §2.5). `think` is a bool or a level (`"low"`…`"max"`). */
function commonRequestFields() {
  return {
    model: z.string().check(z.minLength(1, 'model is required')),
    stream: z.nullish(z.boolean()),
    format: z.nullish(z.union([z.string(), z.record(z.string(), z.unknown())])),
    keep_alive: z.nullish(z.union([z.number(), z.string()])),
    options: z.nullish(ollamaOptionsSchema()),
    think: z.nullish(z.union([z.boolean(), z.string()])),
    ...routerFields(),
  };
}

/** `POST /api/chat` as clients send it. `messages` absent or empty = load the model. */
export const ollamaClientChatRequestSchema = lazySchema(() =>
  z.looseObject({
    ...commonRequestFields(),
    messages: z.nullish(z.array(ollamaClientMessageSchema())),
    tools: z.nullish(z.array(z.looseObject({ type: z.string() }))),
  }),
);

/** `POST /api/generate` as clients send it. An empty `prompt` = load the model. */
export const ollamaClientGenerateRequestSchema = lazySchema(() =>
  z.looseObject({
    ...commonRequestFields(),
    prompt: text(),
    suffix: text(),
    system: text(),
    template: text(),
    raw: z.nullish(z.boolean()),
    images: z.nullish(z.array(z.string())),
    context: z.nullish(z.array(z.number().check(z.int()))),
  }),
);

export type OllamaClientChatRequest = InferLazy<typeof ollamaClientChatRequestSchema>;
export type OllamaClientGenerateRequest = InferLazy<typeof ollamaClientGenerateRequestSchema>;

// Each parse below takes a value its hand check (./ollama-shape) accepts as it is; zod runs on the rest.

export function parseOllamaClientChatRequest(body: unknown): WireParseResult<OllamaClientChatRequest> {
  if (isPlainOllamaChatRequest(body)) return { ok: true, value: body as OllamaClientChatRequest };
  return parseWith(ollamaClientChatRequestSchema(), body, 'invalid request');
}

export function parseOllamaClientGenerateRequest(body: unknown): WireParseResult<OllamaClientGenerateRequest> {
  if (isPlainOllamaGenerateRequest(body)) return { ok: true, value: body as OllamaClientGenerateRequest };
  return parseWith(ollamaClientGenerateRequestSchema(), body, 'invalid request');
}

/** Ollama streams by default (protocols §2.1): only an explicit `stream: false` asks for one object. */
export function ollamaStreamRequested(request: { readonly stream?: boolean | null | undefined }): boolean {
  return request.stream !== false;
}

export type RouterField = 'metadata' | 'fallback_models' | 'user';

/**
 * The body to forward to a node: the client's, minus the router's own fields (ARCHITECTURE.md §9.2) and nothing
 * else. A copy; the client's body is not changed.
 */
export function stripRouterFields<T extends Readonly<Record<string, unknown>>>(body: T): Omit<T, RouterField> {
  const { metadata: _metadata, fallback_models: _fallbackModels, user: _user, ...forwarded } = body;
  return forwarded;
}

// ---------------------------------------------------------------------------------------------------
// What a node streams back.

const ollamaToolCallLineSchema = lazySchema(() =>
  z.looseObject({
    id: text(),
    function: z.looseObject({
      index: number(),
      name: z.string(),
      /** An object from Ollama; a string from some OpenAI-minded agents. Both are relayed. */
      arguments: z.optional(z.unknown()),
    }),
  }),
);

/** Metrics of the final line (durations in nanoseconds). */
function metricFields() {
  return {
    done: z.nullish(z.boolean()),
    done_reason: text(),
    total_duration: number(),
    load_duration: number(),
    prompt_eval_count: number(),
    prompt_eval_duration: number(),
    eval_count: number(),
    eval_duration: number(),
    /**
     * Prompt tokens served from the prefix cache, when the node measured it (mlx-lm's name for the count;
     * a node agent in front of MLX adds it). Plain Ollama does not send it: absent = not measured, 0 =
     * measured and nothing reused (spec §4.1).
     */
    prompt_cache_count: number(),
    /** A node's in-band failure (`{"error": "..."}`, protocols §2.10); usually a string. */
    error: z.optional(z.unknown()),
  };
}

export const ollamaChatChunkSchema = lazySchema(() =>
  z.looseObject({
    model: text(),
    created_at: text(),
    message: z.nullish(
      z.looseObject({
        role: text(),
        content: text(),
        thinking: text(),
        tool_calls: z.nullish(z.array(ollamaToolCallLineSchema())),
        images: z.nullish(z.array(z.string())),
      }),
    ),
    logprobs: z.nullish(z.array(z.unknown())),
    ...metricFields(),
  }),
);

export const ollamaGenerateChunkSchema = lazySchema(() =>
  z.looseObject({
    model: text(),
    created_at: text(),
    response: text(),
    thinking: text(),
    context: z.nullish(z.array(z.number())),
    logprobs: z.nullish(z.array(z.unknown())),
    ...metricFields(),
  }),
);

/** One `/api/chat` NDJSON line from a node; the `stream: false` reply has the same shape. */
export type OllamaChatChunk = InferLazy<typeof ollamaChatChunkSchema>;
export type OllamaChatChunkMessage = NonNullable<OllamaChatChunk['message']>;
export type OllamaChatChunkToolCall = NonNullable<OllamaChatChunkMessage['tool_calls']>[number];
/** One `/api/generate` NDJSON line from a node; the `stream: false` reply has the same shape. */
export type OllamaGenerateChunk = InferLazy<typeof ollamaGenerateChunkSchema>;

export function parseOllamaChatChunk(value: unknown): WireParseResult<OllamaChatChunk> {
  if (isPlainOllamaChatChunk(value)) return { ok: true, value: value as OllamaChatChunk };
  return parseWith(ollamaChatChunkSchema(), value, 'invalid chunk');
}

export function parseOllamaGenerateChunk(value: unknown): WireParseResult<OllamaGenerateChunk> {
  if (isPlainOllamaGenerateChunk(value)) return { ok: true, value: value as OllamaGenerateChunk };
  return parseWith(ollamaGenerateChunkSchema(), value, 'invalid chunk');
}

// ---------------------------------------------------------------------------------------------------
// What the router sends to nodes.

/** `options` (protocols §2.5). Keys the router does not set pass through from the client. */
export interface OllamaOptions {
  readonly temperature?: number;
  readonly top_p?: number;
  readonly seed?: number;
  readonly stop?: readonly string[];
  /** Maximum output tokens, thinking included; -1 = no limit. */
  readonly num_predict?: number;
  readonly num_ctx?: number;
  readonly frequency_penalty?: number;
  readonly presence_penalty?: number;
  readonly [option: string]: unknown;
}

export interface OllamaToolCall {
  readonly id?: string;
  readonly function: {
    readonly index?: number;
    readonly name: string;
    /** An object, never a JSON string: Ollama 400s on a string (anchor §9, Codex second turn). */
    readonly arguments: Readonly<Record<string, unknown>>;
  };
}

export interface OllamaMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
  readonly thinking?: string;
  /** Bare base64, no `data:` prefix. */
  readonly images?: readonly string[];
  readonly tool_calls?: readonly OllamaToolCall[];
  /** On `role: tool`: the name of the tool whose result this is. */
  readonly tool_name?: string;
  readonly tool_call_id?: string;
}

/** A function tool; the client's object is forwarded whole, so optional fields may arrive as `null`. */
export interface OllamaTool {
  readonly type: 'function';
  readonly function: {
    readonly name: string;
    readonly description?: string | null | undefined;
    readonly parameters?: Readonly<Record<string, unknown>> | null | undefined;
    readonly [field: string]: unknown;
  };
  readonly [field: string]: unknown;
}

/** `think`: a bool, or a level for models that take one (`max` is Ollama's newest, protocols §2.3). */
export type OllamaThink = boolean | 'low' | 'medium' | 'high' | 'max';

/** A structured-output request: `"json"` or a JSON Schema object. */
export type OllamaFormat = 'json' | Readonly<Record<string, unknown>>;

export interface OllamaChatRequest {
  readonly model: string;
  readonly messages: readonly OllamaMessage[];
  readonly stream: boolean;
  readonly format?: OllamaFormat;
  readonly keep_alive?: number | string;
  readonly tools?: readonly OllamaTool[];
  readonly options?: OllamaOptions;
  readonly think?: OllamaThink;
  /** Fields forwarded from the client as they came (Ollama ignores what it does not know). */
  readonly [field: string]: unknown;
}

export interface OllamaGenerateRequest {
  readonly model: string;
  readonly prompt: string;
  readonly stream: boolean;
  readonly suffix?: string;
  readonly system?: string;
  readonly template?: string;
  readonly raw?: boolean;
  readonly images?: readonly string[];
  readonly format?: OllamaFormat;
  readonly keep_alive?: number | string;
  readonly options?: OllamaOptions;
  readonly think?: OllamaThink;
  readonly [field: string]: unknown;
}
