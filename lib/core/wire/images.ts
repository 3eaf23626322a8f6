/**
 * Image generation on the wire (spec §4.2 `POST /v1/images/generations`, §4.5 `GET /api/image-models` and
 * `POST /api/generate-image`, §2 "Image model entry"; ARCHITECTURE.md §8.3 image sidecar and Ollama-native image
 * models; protocols §5.3): what clients send, as loose zod schemas (unknown fields pass and are forwarded
 * to the node), what the router sends to sidecars and Ollama and answers, as TS interfaces, and the one
 * field of Ollama's reply it reads. Numbers are only type-checked here; ranges and defaults are the
 * translator's (`lib/core/protocols/images/image-job`), so a 400 names the field and the allowed range. Pure.
 */
import { type InferLazy, lazySchema } from './lazy-schema';
import { parseWith, type WireParseResult } from './parse-with';
import * as z from './zod';

const WHOLE = 'must be a whole number';

/** The router's own fields (ARCHITECTURE.md §9.2): read for tags and fallbacks, never forwarded. */
function routerFields() {
  return {
    fallback_models: z.nullish(z.array(z.string())),
    metadata: z.nullish(z.looseObject({ tags: z.optional(z.unknown()) })),
    user: z.nullish(z.string()),
  };
}

/** Fields both routes share; `prompt` is `unknown` so a missing or blank one gets `prompt is required`. */
function commonFields() {
  return {
    model: z.string({ error: 'must be a string' }),
    prompt: z.optional(z.unknown()),
    steps: z.nullish(z.number({ error: WHOLE }).check(z.int(WHOLE))),
    guidance: z.nullish(z.number({ error: 'must be a number' })),
    seed: z.nullish(z.number({ error: WHOLE }).check(z.int(WHOLE))),
    negative_prompt: z.nullish(z.string({ error: 'must be a string' })),
    stream: z.nullish(z.boolean({ error: 'must be a boolean' })),
    ...routerFields(),
  };
}

/** `POST /api/generate-image` (spec §4.5). */
export const generateImageRequestSchema = lazySchema(() =>
  z.looseObject({
    ...commonFields(),
    width: z.nullish(z.number({ error: WHOLE }).check(z.int(WHOLE))),
    height: z.nullish(z.number({ error: WHOLE }).check(z.int(WHOLE))),
  }),
);

/** `POST /v1/images/generations` (spec §4.2; protocols §5.3). `size` and `response_format` are checked by the translator. */
export const openAIImageRequestSchema = lazySchema(() =>
  z.looseObject({
    ...commonFields(),
    size: z.nullish(z.string({ error: 'must be a string like 1024x1024' })),
    response_format: z.nullish(z.string({ error: 'must be b64_json or url' })),
    n: z.nullish(z.number({ error: WHOLE }).check(z.int(WHOLE))),
  }),
);

export type GenerateImageRequest = InferLazy<typeof generateImageRequestSchema>;
export type OpenAIImageRequest = InferLazy<typeof openAIImageRequestSchema>;

export function parseGenerateImageRequest(body: unknown): WireParseResult<GenerateImageRequest> {
  return parseWith(generateImageRequestSchema(), body, 'invalid request');
}

export function parseOpenAIImageRequest(body: unknown): WireParseResult<OpenAIImageRequest> {
  return parseWith(openAIImageRequestSchema(), body, 'invalid request');
}

/** What the image sidecar takes (ARCHITECTURE.md §8.3): `POST <sidecar>/api/generate-image` → PNG bytes. */
export interface SidecarImageRequest {
  readonly [field: string]: unknown;
  readonly model: string;
  readonly prompt: string;
  readonly width: number;
  readonly height: number;
  readonly steps: number;
  readonly guidance?: number;
  readonly seed?: number;
}

/** What an Ollama-native image model takes: `POST <node>/api/generate`, not streamed; the seed is an option. */
export interface OllamaImageRequest {
  readonly [field: string]: unknown;
  readonly model: string;
  readonly prompt: string;
  readonly stream: false;
  readonly width: number;
  readonly height: number;
  /** Absent = the model's own default. */
  readonly steps?: number;
  readonly options?: Readonly<Record<string, unknown>>;
}

/** Ollama's non-streamed `/api/generate` reply for an image model: `image` is a base64 PNG. */
const ollamaImageReplySchema = lazySchema(() => z.looseObject({ image: z.nullish(z.string()) }));

export type OllamaImageReply = InferLazy<typeof ollamaImageReplySchema>;

export function parseOllamaImageReply(body: unknown): WireParseResult<OllamaImageReply> {
  return parseWith(ollamaImageReplySchema(), body, 'invalid reply');
}

/** `POST /v1/images/generations` with `response_format: b64_json` (protocols §5.3). */
export interface OpenAIImagesResponse {
  readonly created: number;
  readonly data: readonly { readonly b64_json: string; readonly revised_prompt: string }[];
}

/** One element of `GET /api/image-models` `models` (spec §2 "Image model entry"). */
export interface ImageModelEntry {
  readonly name: string;
  readonly type: 'image';
  readonly backend: string;
  readonly fleet_nodes: readonly string[];
}

export interface ImageModelsList {
  readonly models: readonly ImageModelEntry[];
}
