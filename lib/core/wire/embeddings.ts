/**
 * Embeddings on the wire (spec §4.2 `POST /v1/embeddings`, §4.4 `POST /api/embed` and `/api/embeddings`;
 * protocols §2.6, §5.1): what clients send, as loose zod schemas (unknown fields pass and are forwarded
 * to Ollama nodes), and what the router sends to nodes and sidecars, as TS interfaces. `input` and
 * `prompt` are `unknown` here: `lib/core/protocols/embeddings/embedding-inputs` checks them item by item so a
 * 400 can name `input.3`. A node's reply is read without zod (`read-node-embeddings`): its vectors are
 * large and a schema would copy every one. Pure.
 */
import { type InferLazy, lazySchema } from './lazy-schema';
import { parseWith, type WireParseResult } from './parse-with';
import * as z from './zod';

/** The router's own fields (ARCHITECTURE.md §9.2): read for tags and fallbacks, stripped before forwarding. */
function routerFields() {
  return {
    fallback_models: z.nullish(z.array(z.string())),
    // The spec puts an array in `tags`; OpenAI-minded clients send a string map: both are accepted.
    metadata: z.nullish(z.looseObject({ tags: z.nullish(z.union([z.array(z.string()), z.string()])) })),
    user: z.nullish(z.string()),
  };
}

/** Fields all three routes share. `truncate` is read by the service (see `embed-texts`) and forwarded to Ollama. */
function commonFields() {
  return {
    model: z.string().check(z.minLength(1, 'model is required')),
    dimensions: z.nullish(
      z
        .number({ error: 'must be a positive integer' })
        .check(z.int('must be a positive integer'), z.positive('must be a positive integer')),
    ),
    truncate: z.nullish(z.boolean()),
    ...routerFields(),
  };
}

/** `POST /v1/embeddings` (protocols §5.1). `encoding_format` is checked by the service (400 names it). */
export const openAIEmbeddingsRequestSchema = lazySchema(() =>
  z.looseObject({
    ...commonFields(),
    input: z.optional(z.unknown()),
    encoding_format: z.optional(z.unknown()),
  }),
);

/** `POST /api/embed` and the legacy `POST /api/embeddings` (protocols §2.6): `input` or `prompt`. */
export const ollamaEmbedRequestSchema = lazySchema(() =>
  z.looseObject({
    ...commonFields(),
    input: z.optional(z.unknown()),
    prompt: z.optional(z.unknown()),
    keep_alive: z.nullish(z.union([z.number(), z.string()])),
    options: z.nullish(z.record(z.string(), z.unknown())),
  }),
);

export type OpenAIEmbeddingsRequest = InferLazy<typeof openAIEmbeddingsRequestSchema>;
export type OllamaEmbedRequest = InferLazy<typeof ollamaEmbedRequestSchema>;

export function parseOpenAIEmbeddingsRequest(body: unknown): WireParseResult<OpenAIEmbeddingsRequest> {
  return parseWith(openAIEmbeddingsRequestSchema(), body, 'invalid request');
}

export function parseOllamaEmbedRequest(body: unknown): WireParseResult<OllamaEmbedRequest> {
  return parseWith(ollamaEmbedRequestSchema(), body, 'invalid request');
}

/** What the router sends a node's Ollama: `POST /api/embed`, plus whatever else the client sent. */
export interface OllamaEmbedNodeRequest {
  readonly model: string;
  readonly input: readonly string[];
  readonly dimensions?: number;
  readonly truncate?: boolean;
  readonly keep_alive?: number | string;
  readonly options?: Readonly<Record<string, unknown>>;
  readonly [field: string]: unknown;
}

/** What the router sends a text-embedding sidecar (ARCHITECTURE.md §8.3): `POST /embed`, nothing else. */
export interface SidecarEmbedRequest {
  readonly model: string;
  readonly input: readonly string[];
}

/** `POST /v1/embeddings`' reply (protocols §5.1). `embedding` is base64 LE float32 when asked. */
export interface OpenAIEmbeddingsResponse {
  readonly object: 'list';
  readonly data: readonly {
    readonly object: 'embedding';
    readonly index: number;
    readonly embedding: readonly number[] | string;
  }[];
  readonly model: string;
  readonly usage: { readonly prompt_tokens: number; readonly total_tokens: number };
}

/** `POST /api/embed`'s reply, as Ollama writes it (durations in nanoseconds). */
export interface OllamaEmbedResponse {
  readonly model: string;
  readonly embeddings: readonly (readonly number[])[];
  readonly total_duration: number;
  readonly load_duration: number;
  readonly prompt_eval_count: number;
}

/** The legacy `POST /api/embeddings` reply. */
export interface OllamaLegacyEmbeddingResponse {
  readonly embedding: readonly number[];
}
