/**
 * What the router reads from a listed node's Ollama API when it polls it (contract §3.1; shapes in
 * research/protocols.md §2.7–2.9, §2.11): `/api/tags`, `/api/ps`, `/api/version`, `/api/show`.
 * Minimal and lenient: only the fields the router uses are typed, every one `nullish`, objects loose
 * so a newer Ollama's extra fields pass through. Parsers return a result and never throw. Pure.
 */
import * as z from 'zod';
import { parseWith, type WireParseResult } from './parse-with';

const text = z.string().nullish();
const number = z.number().nullish();

/** Ollama's `details` object; `families` is `null` on some models. */
const ollamaDetailsSchema = z.looseObject({
  parent_model: text,
  format: text,
  family: text,
  families: z.array(z.string()).nullish(),
  parameter_size: text,
  quantization_level: text,
});

export const ollamaTagsResponseSchema = z.looseObject({
  models: z
    .array(
      z.looseObject({
        name: z.string(),
        model: text,
        modified_at: text,
        size: number,
        digest: text,
        details: ollamaDetailsSchema.nullish(),
        capabilities: z.array(z.string()).nullish(),
      }),
    )
    .nullish(),
});

export const ollamaPsResponseSchema = z.looseObject({
  models: z
    .array(
      z.looseObject({
        name: z.string(),
        model: text,
        size: number,
        size_vram: number,
        digest: text,
        details: ollamaDetailsSchema.nullish(),
        expires_at: text,
        context_length: number,
      }),
    )
    .nullish(),
});

export const ollamaVersionResponseSchema = z.looseObject({ version: z.string() });

export const ollamaShowResponseSchema = z.looseObject({
  capabilities: z.array(z.string()).nullish(),
  model_info: z.record(z.string(), z.unknown()).nullish(),
  details: ollamaDetailsSchema.nullish(),
});

export type OllamaDetails = z.infer<typeof ollamaDetailsSchema>;
export type OllamaTagsResponse = z.infer<typeof ollamaTagsResponseSchema>;
export type OllamaTagsModel = NonNullable<OllamaTagsResponse['models']>[number];
export type OllamaPsResponse = z.infer<typeof ollamaPsResponseSchema>;
export type OllamaPsModel = NonNullable<OllamaPsResponse['models']>[number];
export type OllamaVersionResponse = z.infer<typeof ollamaVersionResponseSchema>;
export type OllamaShowResponse = z.infer<typeof ollamaShowResponseSchema>;

export type OllamaParseResult<T> = WireParseResult<T>;

export function parseOllamaTags(body: unknown): OllamaParseResult<OllamaTagsResponse> {
  return parseWith(ollamaTagsResponseSchema, body, 'invalid response');
}

export function parseOllamaPs(body: unknown): OllamaParseResult<OllamaPsResponse> {
  return parseWith(ollamaPsResponseSchema, body, 'invalid response');
}

export function parseOllamaVersion(body: unknown): OllamaParseResult<OllamaVersionResponse> {
  return parseWith(ollamaVersionResponseSchema, body, 'invalid response');
}

export function parseOllamaShow(body: unknown): OllamaParseResult<OllamaShowResponse> {
  return parseWith(ollamaShowResponseSchema, body, 'invalid response');
}
