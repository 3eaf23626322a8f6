import { validateHeaderValue } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { headerValue, MAX_HEADER_VALUE_CHARS } from '../../../../lib/services/http/header-value';

describe('headerValue', () => {
  it('keeps printable ASCII as it is', () => {
    expect(headerValue('hf.co/unsloth/Qwen3-30B-A3B-GGUF:Q4_K_M')).toBe('hf.co/unsloth/Qwen3-30B-A3B-GGUF:Q4_K_M');
  });

  it.each([
    ['a control character', 'llama\r\nx-evil: 1'],
    ['text outside Latin-1', '模型:7b'],
    ['Latin-1 Node would write but clients read as mojibake', 'modèle'],
    ['an unpaired surrogate', 'a\ud800b'],
  ])('percent-encodes %s into a value Node writes and clients decode', (_case, text) => {
    const value = headerValue(text);

    expect(() => validateHeaderValue('x-fleet-model', value)).not.toThrow();
    expect(value).toMatch(/^[\x21-\x7e]*$/);
    expect(decodeURIComponent(value)).toBe(text.replace('\ud800', '\ufffd'));
  });

  it('bounds a long value, never inside an escape', () => {
    const ascii = headerValue('m'.repeat(30_000));
    const encoded = headerValue('é'.repeat(30_000));

    expect(ascii).toBe('m'.repeat(MAX_HEADER_VALUE_CHARS));
    expect(encoded.length).toBeLessThanOrEqual(MAX_HEADER_VALUE_CHARS);
    expect(encoded).toMatch(/^(%C3%A9)+$/);
  });
});
