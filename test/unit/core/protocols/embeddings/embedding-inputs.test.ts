import { describe, expect, it } from '@jest/globals';
import { BadRequestError } from '../../../../../lib/core/errors';
import { embeddingInputs } from '../../../../../lib/core/protocols/embeddings/embedding-inputs';

/** The 400 `embeddingInputs` throws, or undefined when it accepts the value. */
function refusal(value: unknown, field = 'input'): BadRequestError | undefined {
  try {
    embeddingInputs(value, field);
    return undefined;
  } catch (error) {
    if (error instanceof BadRequestError) return error;
    throw error;
  }
}

describe('embeddingInputs', () => {
  it('turns one string into one text', () => {
    expect(embeddingInputs('hello', 'input')).toEqual(['hello']);
  });

  it('returns an array of strings as it is, in order', () => {
    const texts = ['a', 'b', ' ', 'c'];

    expect(embeddingInputs(texts, 'input')).toBe(texts);
  });

  it.each([
    ['an empty string', '', 'input'],
    ['an empty string in an array', ['a', 'b', ''], 'input.2'],
    ['the first item empty', ['', 'b'], 'input.0'],
  ])('refuses %s with 400 naming the field, never skipping it', (_case, value, field) => {
    const error = refusal(value);

    expect(error?.status).toBe(400);
    expect(error?.param).toBe(field);
    expect(error?.message).toBe(
      `${field} is an empty string: every input needs text (skipping it would shift the indexes)`,
    );
  });

  it('names the field the client used', () => {
    expect(refusal('', 'prompt')?.param).toBe('prompt');
    expect(refusal(undefined, 'prompt')?.message).toBe('prompt is required');
  });

  it.each([
    ['missing', undefined, 'input', 'input is required'],
    ['null', null, 'input', 'input is required'],
    ['an empty array', [], 'input', 'input must not be an empty array'],
    ['a number', 42, 'input', 'input must be a string or an array of strings'],
    ['an object', { text: 'hi' }, 'input', 'input must be a string or an array of strings'],
    ['a null item', ['a', null], 'input.1', 'input.1 must be a string'],
    ['an object item', ['a', { text: 'b' }], 'input.1', 'input.1 must be a string'],
  ])('refuses %s with a 400 naming the field', (_case, value, field, message) => {
    const error = refusal(value);

    expect(error?.param).toBe(field);
    expect(error?.message).toBe(message);
  });

  it.each([
    ['token ids', [15339, 1917], 'input'],
    ['an array of token-id arrays', [[15339], [1917]], 'input.0'],
    ['token ids among strings', ['hello', [1917]], 'input.1'],
  ])('refuses %s with a 400 that says to send text', (_case, value, field) => {
    const error = refusal(value);

    expect(error?.param).toBe(field);
    expect(error?.message).toContain('token-id inputs are not supported');
  });
});
