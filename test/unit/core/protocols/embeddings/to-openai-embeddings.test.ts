import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import { BadRequestError } from '../../../../../lib/core/errors';
import {
  encodingFormatOf,
  float32Base64,
  toOpenAIEmbeddings,
} from '../../../../../lib/core/protocols/embeddings/to-openai-embeddings';

/** What openai-node does with a base64 embedding: its bytes as a little-endian Float32Array. */
function decodeLikeOpenAINode(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.length / 4 }, (_, index) => view.getFloat32(index * 4, true));
}

describe('encodingFormatOf', () => {
  it('defaults to float', () => {
    expect(encodingFormatOf(undefined)).toBe('float');
    expect(encodingFormatOf(null)).toBe('float');
  });

  it('takes float and base64', () => {
    expect(encodingFormatOf('float')).toBe('float');
    expect(encodingFormatOf('base64')).toBe('base64');
  });

  it.each([['binary'], ['FLOAT'], [1], [{}]])('refuses %p with a 400 naming encoding_format', (value) => {
    let error: unknown;
    try {
      encodingFormatOf(value);
    } catch (thrown) {
      error = thrown;
    }

    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).param).toBe('encoding_format');
    expect((error as BadRequestError).message).toMatch(/^encoding_format must be "float" or "base64", not /);
  });
});

describe('float32Base64', () => {
  it('encodes little-endian float32 bytes in standard base64', () => {
    expect(float32Base64([0.5, -1, 2])).toBe('AAAAPwAAgL8AAABA');
    expect(float32Base64([])).toBe('');
  });

  it('decodes back to each value rounded to float32', () => {
    // biome-ignore lint/nursery/noFloatingPromises: fc.assert of a synchronous property returns void, not a promise.
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, min: -1e30, max: 1e30 }), { maxLength: 64 }), (vector) => {
        expect(decodeLikeOpenAINode(float32Base64(vector))).toEqual(vector.map((value) => Math.fround(value)));
      }),
    );
  });
});

describe('toOpenAIEmbeddings', () => {
  const vectors = [
    [0.5, -1, 2],
    [0.25, 0, -0.125],
  ];

  it('lists the vectors as floats in input order, with usage', () => {
    const reply = toOpenAIEmbeddings(vectors, { model: 'nomic-embed-text:latest', encoding: 'float', promptTokens: 7 });

    expect(reply).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.5, -1, 2] },
        { object: 'embedding', index: 1, embedding: [0.25, 0, -0.125] },
      ],
      model: 'nomic-embed-text:latest',
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
    expect(reply.data[0]?.embedding).toBe(vectors[0]);
  });

  it('encodes each vector as base64 when asked', () => {
    const reply = toOpenAIEmbeddings(vectors, { model: 'm', encoding: 'base64', promptTokens: 0 });

    expect(reply.data.map((item) => item.embedding)).toEqual(['AAAAPwAAgL8AAABA', float32Base64([0.25, 0, -0.125])]);
    expect(decodeLikeOpenAINode(String(reply.data[1]?.embedding))).toEqual([0.25, 0, -0.125]);
  });
});
