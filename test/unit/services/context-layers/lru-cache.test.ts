import { describe, expect, it } from '@jest/globals';
import { createLruCache } from '../../../../lib/services/context-layers/lru-cache';

describe('createLruCache', () => {
  it('forgets the least recently used entry beyond its bound', () => {
    const cache = createLruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');

    cache.set('c', 3);

    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
    expect(cache.size).toBe(2);
  });

  it('replaces a value without growing', () => {
    const cache = createLruCache<string, number>(2);
    cache.set('a', 1);

    cache.set('a', 2);

    expect(cache.get('a')).toBe(2);
    expect(cache.size).toBe(1);
  });

  it('refuses a bound below 1', () => {
    expect(() => createLruCache(0)).toThrow(RangeError);
  });
});
