import { describe, expect, it } from '@jest/globals';
import { merged } from '../../../lib/core/merged';
import { haveSameMap } from '../../helpers/hidden-class';

describe('merged', () => {
  it('merges left to right, later sources winning, and skips absent ones', () => {
    const base = { a: 1, b: 2 };
    expect(merged<Record<string, number>>(base, undefined, { b: 3, c: 4 }, { d: 5 })).toEqual({
      a: 1,
      b: 3,
      c: 4,
      d: 5,
    });
    expect(base).toEqual({ a: 1, b: 2 });
    expect(merged()).toEqual({});
  });

  it('gives objects merged from the same shapes one hidden class, where a spread-first literal does not', () => {
    const build = (index: number) => merged<Record<string, unknown>>({ model: 'm', stream: false }, { index });
    const spread = (index: number) => ({ ...{ model: 'm', stream: false }, index });
    const first = build(0);
    expect(Array.from({ length: 2000 }, (_, index) => haveSameMap(first, build(index))).every(Boolean)).toBe(true);
    const firstSpread = spread(0);
    expect(Array.from({ length: 2000 }, (_, index) => haveSameMap(firstSpread, spread(index))).every(Boolean)).toBe(
      false,
    );
  });
});
