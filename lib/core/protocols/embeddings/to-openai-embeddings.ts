/**
 * The `POST /v1/embeddings` reply (spec §4.2; protocols §5.1): `{object: "list", data: [{object:
 * "embedding", index, embedding}], model, usage: {prompt_tokens, total_tokens}}`, in input order.
 * `encoding_format` is `float` when absent (OpenAI's API default; openai-node always sends one) or
 * `base64`: each vector as its raw little-endian IEEE-754 float32 bytes in standard base64 with padding
 * (`[0.5, -1, 2]` → `AAAAPwAAgL8AAABA`), which openai-node decodes back to numbers. Anything else is a
 * 400 naming `encoding_format`. Float vectors are the node's own arrays, not copies. Pure.
 */
import { BadRequestError } from '../../errors';
import type { OpenAIEmbeddingsResponse } from '../../wire/embeddings';

export type EncodingFormat = 'float' | 'base64';

export function encodingFormatOf(value: unknown): EncodingFormat {
  if (value === undefined || value === null || value === 'float') return 'float';
  if (value === 'base64') return 'base64';
  throw new BadRequestError(
    `encoding_format must be "float" or "base64", not ${JSON.stringify(value) ?? String(value)}`,
    'encoding_format',
  );
}

/** The vector's little-endian float32 bytes, base64-encoded (values round to the nearest float32). */
export function float32Base64(vector: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let index = 0; index < vector.length; index++) bytes.writeFloatLE(vector[index] ?? 0, index * 4);
  return bytes.toString('base64');
}

export interface OpenAIEmbeddingsContext {
  /** The model that served, as the node names it. */
  readonly model: string;
  readonly encoding: EncodingFormat;
  readonly promptTokens: number;
}

export function toOpenAIEmbeddings(
  embeddings: readonly (readonly number[])[],
  context: OpenAIEmbeddingsContext,
): OpenAIEmbeddingsResponse {
  const base64 = context.encoding === 'base64';
  return {
    object: 'list',
    data: embeddings.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: base64 ? float32Base64(vector) : vector,
    })),
    model: context.model,
    usage: { prompt_tokens: context.promptTokens, total_tokens: context.promptTokens },
  };
}
