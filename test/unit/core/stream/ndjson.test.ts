import { describe, expect, it } from '@jest/globals';
import { encodeNdjson } from '../../../../lib/core/stream/ndjson';

describe('encodeNdjson', () => {
  it('writes one JSON value and a newline', () => {
    expect(encodeNdjson({ done: true, eval_count: 0 })).toBe('{"done":true,"eval_count":0}\n');
  });

  it('keeps a value with line breaks on one line', () => {
    expect(encodeNdjson({ response: 'a\nb' })).toBe('{"response":"a\\nb"}\n');
  });

  it('refuses a value JSON cannot encode', () => {
    expect(() => encodeNdjson(undefined)).toThrow(TypeError);
  });
});
