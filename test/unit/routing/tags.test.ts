import { describe, expect, it } from '@jest/globals';
import { mergeTags } from '../../../lib/routing/tags';

describe('mergeTags', () => {
  it('merges body tags, then header tags, then the user, in that order', () => {
    expect(mergeTags({ metadataTags: ['team:a', 'prod'], headerValue: 'batch, nightly', user: 'alice' })).toEqual([
      'team:a',
      'prod',
      'batch',
      'nightly',
      'user:alice',
    ]);
  });

  it('keeps the first of duplicates', () => {
    expect(mergeTags({ metadataTags: ['a', 'b', 'a'], headerValue: 'b,c,a' })).toEqual(['a', 'b', 'c']);
  });

  it('trims and drops empty values', () => {
    expect(mergeTags({ metadataTags: ['  a ', '', '   '], headerValue: ' , b ,, ', user: '  ' })).toEqual(['a', 'b']);
  });

  it('ignores values that are not strings', () => {
    expect(mergeTags({ metadataTags: ['a', 3, null, { tag: 'x' }, ['b']], user: 42 })).toEqual(['a']);
    expect(mergeTags({ metadataTags: 'not-a-list', user: { id: 1 } })).toEqual([]);
  });

  it('prefixes the user and trims its value', () => {
    expect(mergeTags({ user: ' bob ' })).toEqual(['user:bob']);
    expect(mergeTags({ metadataTags: ['user:bob'], user: 'bob' })).toEqual(['user:bob']);
  });

  it('is empty with no sources', () => {
    expect(mergeTags({})).toEqual([]);
  });
});
