import { describe, expect, it } from '@jest/globals';
import { dayOf, lockKey, NODE_PARTITION, nodeKey, prefixedKey } from '../../../../lib/services/store/keys';

describe('keys', () => {
  it('names the UTC day of a time, across day boundaries in either order', () => {
    const midnight = Date.parse('2026-11-21T00:00:00.000Z');

    expect(dayOf(midnight - 1)).toBe('2026-11-20');
    expect(dayOf(midnight)).toBe('2026-11-21');
    expect(dayOf(midnight + 86_399_999)).toBe('2026-11-21');
    expect(dayOf(midnight + 86_400_000)).toBe('2026-11-22');
    expect(dayOf(midnight - 1)).toBe('2026-11-20');
  });

  it('puts every node in one partition, keyed by id', () => {
    expect(nodeKey('10.0.1.10:11434')).toEqual({ pk: NODE_PARTITION, sk: '10.0.1.10:11434' });
  });

  it('gives each lock its own partition', () => {
    expect(lockKey('pull#llama3.2:3b')).toEqual({ pk: 'LOCK#pull#llama3.2:3b', sk: 'ITEM' });
  });

  it('joins prefixed parts with #', () => {
    expect(prefixedKey('USAGE', 'llama3.2:3b', '2026-01-01T10')).toBe('USAGE#llama3.2:3b#2026-01-01T10');
  });

  it('refuses a separator inside any part but the last, and empty parts', () => {
    expect(() => prefixedKey('USAGE', 'a#b', 'c')).toThrow(/may not contain/);
    expect(() => prefixedKey('USAGE', '')).toThrow(/empty/);
    expect(() => nodeKey('')).toThrow(/empty/);
    expect(() => prefixedKey('US#AGE', 'a')).toThrow(/may not contain/);
    expect(() => prefixedKey('', 'a')).toThrow(/key part 0 of "#a" is empty/);
    expect(prefixedKey('LOCK', 'pull#a#b')).toBe('LOCK#pull#a#b');
    expect(prefixedKey('A#B')).toBe('A#B');
  });
});
