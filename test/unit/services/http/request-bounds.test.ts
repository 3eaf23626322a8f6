import { describe, expect, it } from '@jest/globals';
import { echoed } from '../../../../lib/core/wire/echoed';
import {
  checkName,
  checkRequestBounds,
  MAX_FALLBACK_MODELS,
  MAX_ID_BYTES,
  MAX_NAME_BYTES,
  nestsDeeperThan,
  pathTooDeep,
} from '../../../../lib/services/http/request-bounds';

/** `[[[…]]]` nested `depth` arrays deep, built without recursion. */
function nestedArrays(depth: number): unknown[] {
  let value: unknown[] = [];
  for (let level = 1; level < depth; level += 1) value = [value];
  return value;
}

describe('pathTooDeep', () => {
  it('names the path, array indexes included, of the first container past the limit', () => {
    const value = { keep: [1, 2], tools: [{ schema: { a: { b: {} } } }] };

    expect(pathTooDeep(value, 5)).toBe('tools.0.schema.a.b');
    expect(pathTooDeep(value, 6)).toBeUndefined();
  });

  it('walks a 100,000-deep value without overflowing the stack', () => {
    expect(pathTooDeep(nestedArrays(100_000), 3)).toBe('0.0.0');
    expect(pathTooDeep(nestedArrays(100_000), 200_000)).toBeUndefined();
  });

  it('bounds the path it reports when the keys are long', () => {
    const key = 'k'.repeat(10_000);
    const path = pathTooDeep({ [key]: { [key]: { [key]: {} } } }, 3) ?? '';

    expect(path.length).toBeLessThan(500);
  });

  it('ignores scalars', () => {
    expect(pathTooDeep('text', 1)).toBeUndefined();
    expect(pathTooDeep(null, 1)).toBeUndefined();
  });
});

describe('checkName', () => {
  it('accepts names as long as the bound, in bytes, with any printable character', () => {
    expect(() => checkName('é'.repeat(MAX_NAME_BYTES / 2), 'model', MAX_NAME_BYTES)).not.toThrow();
    expect(() => checkName('hf.co/unsloth/Qwen3-30B-A3B-GGUF:Q4_K_M 😀', 'model', MAX_NAME_BYTES)).not.toThrow();
  });

  it('refuses a name a byte over the bound, naming the field', () => {
    expect(() => checkName('é'.repeat(MAX_NAME_BYTES / 2 + 1), 'model', MAX_NAME_BYTES)).toThrow(
      expect.objectContaining({ status: 400, param: 'model', message: expect.stringMatching(/^model: longer than/) }),
    );
  });

  it.each([
    ['a NUL', 'a\u0000b', /U\+0000 at 1/],
    ['a newline', 'a\nb', /U\+000A at 1/],
    ['DEL', 'a\u007f', /U\+007F at 1/],
    ['a C1 control', '\u0085', /U\+0085 at 0/],
    ['invalid UTF-8 (decoded to U+FFFD)', 'a\ufffd', /not valid UTF-8/],
    ['an unpaired surrogate', 'a\ud800b', /unpaired surrogate at 1/],
    ['a lone low surrogate', '\udc00', /unpaired surrogate at 0/],
  ])('refuses %s', (_case, name, message) => {
    expect(() => checkName(name, 'node_id', MAX_ID_BYTES)).toThrow(
      expect.objectContaining({ param: 'node_id', message: expect.stringMatching(message) }),
    );
  });
});

describe('checkRequestBounds', () => {
  it('refuses more fallback models than it routes to', () => {
    const fallbacks = Array.from({ length: MAX_FALLBACK_MODELS + 1 }, (_, index) => `m${index}`);

    expect(() => checkRequestBounds({ fallback_models: fallbacks.slice(1) }, 10)).not.toThrow();
    expect(() => checkRequestBounds({ fallback_models: fallbacks }, 10)).toThrow(
      expect.objectContaining({ param: 'fallback_models' }),
    );
  });

  it('checks model, name, each fallback model and node_id, and leaves wrong types to the schemas', () => {
    expect(() => checkRequestBounds({ model: 1, name: [], fallback_models: 'x', node_id: {} }, 10)).not.toThrow();
    expect(() => checkRequestBounds({ name: 'a\tb' }, 10)).toThrow(expect.objectContaining({ param: 'name' }));
    expect(() => checkRequestBounds({ fallback_models: ['ok', 'a\u0000'] }, 10)).toThrow(
      expect.objectContaining({ param: 'fallback_models.1' }),
    );
    expect(() => checkRequestBounds({ node_id: 'n'.repeat(MAX_ID_BYTES + 1) }, 10)).toThrow(
      expect.objectContaining({ param: 'node_id' }),
    );
  });
});

describe('echoed', () => {
  it('keeps short text and cuts long text, never inside a surrogate pair', () => {
    expect(echoed('short')).toBe('short');
    expect(echoed('x'.repeat(1000), 10)).toBe(`${'x'.repeat(10)}… (1000 characters)`);
    expect(echoed(`${'x'.repeat(9)}😀`, 10)).toBe(`${'x'.repeat(9)}… (11 characters)`);
  });
});

describe('nestsDeeperThan', () => {
  it('agrees with pathTooDeep at and around the limit, for objects and arrays', () => {
    const value = { keep: [1, [2]], tools: [{ schema: { a: { b: {} } } }] };

    expect(nestsDeeperThan(value, 5)).toBe(true);
    expect(nestsDeeperThan(value, 6)).toBe(false);
    expect(nestsDeeperThan(nestedArrays(100_000), 99_999)).toBe(true);
    expect(nestsDeeperThan(nestedArrays(100_000), 100_000)).toBe(false);
    expect(nestsDeeperThan(7, 1)).toBe(false);
  });
});
