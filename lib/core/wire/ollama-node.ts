/**
 * What the router reads from a listed node's Ollama API when it polls it (ARCHITECTURE.md §8.1; shapes in
 * research/protocols.md §2.7–2.9, §2.11): `/api/tags`, `/api/ps`, `/api/version`, `/api/show`.
 * Minimal and lenient: only the fields the router uses are typed, every one `nullish`, objects loose
 * so a newer Ollama's extra fields pass through. Parsers return a result and never throw. Pure.
 */
import { type InferLazy, lazySchema } from './lazy-schema';
import { parseWith, type WireParseResult } from './parse-with';
import * as z from './zod';

const text = lazySchema(() => z.nullish(z.string()));
const number = lazySchema(() => z.nullish(z.number()));

/** Ollama's `details` object; `families` is `null` on some models. */
const ollamaDetailsSchema = lazySchema(() =>
  z.looseObject({
    parent_model: text(),
    format: text(),
    family: text(),
    families: z.nullish(z.array(z.string())),
    parameter_size: text(),
    quantization_level: text(),
  }),
);

export const ollamaTagsResponseSchema = lazySchema(() =>
  z.looseObject({
    models: z.nullish(
      z.array(
        z.looseObject({
          name: z.string(),
          model: text(),
          modified_at: text(),
          size: number(),
          digest: text(),
          details: z.nullish(ollamaDetailsSchema()),
          capabilities: z.nullish(z.array(z.string())),
        }),
      ),
    ),
  }),
);

export const ollamaPsResponseSchema = lazySchema(() =>
  z.looseObject({
    models: z.nullish(
      z.array(
        z.looseObject({
          name: z.string(),
          model: text(),
          size: number(),
          size_vram: number(),
          digest: text(),
          details: z.nullish(ollamaDetailsSchema()),
          expires_at: text(),
          context_length: number(),
        }),
      ),
    ),
  }),
);

export const ollamaVersionResponseSchema = lazySchema(() => z.looseObject({ version: z.string() }));

export const ollamaShowResponseSchema = lazySchema(() =>
  z.looseObject({
    capabilities: z.nullish(z.array(z.string())),
    model_info: z.nullish(z.record(z.string(), z.unknown())),
    details: z.nullish(ollamaDetailsSchema()),
  }),
);

export type OllamaDetails = InferLazy<typeof ollamaDetailsSchema>;
export type OllamaTagsResponse = InferLazy<typeof ollamaTagsResponseSchema>;
export type OllamaTagsModel = NonNullable<OllamaTagsResponse['models']>[number];
export type OllamaPsResponse = InferLazy<typeof ollamaPsResponseSchema>;
export type OllamaPsModel = NonNullable<OllamaPsResponse['models']>[number];
export type OllamaVersionResponse = InferLazy<typeof ollamaVersionResponseSchema>;
export type OllamaShowResponse = InferLazy<typeof ollamaShowResponseSchema>;

export type OllamaParseResult<T> = WireParseResult<T>;

export function parseOllamaTags(body: unknown): OllamaParseResult<OllamaTagsResponse> {
  return parseWith(ollamaTagsResponseSchema(), body, 'invalid response');
}

export function parseOllamaPs(body: unknown): OllamaParseResult<OllamaPsResponse> {
  return parseWith(ollamaPsResponseSchema(), body, 'invalid response');
}

export function parseOllamaVersion(body: unknown): OllamaParseResult<OllamaVersionResponse> {
  return parseWith(ollamaVersionResponseSchema(), body, 'invalid response');
}

export function parseOllamaShow(body: unknown): OllamaParseResult<OllamaShowResponse> {
  return parseWith(ollamaShowResponseSchema(), body, 'invalid response');
}
