import { describe, expect, it } from '@jest/globals';
import { MAX_TAG_CHARS, MAX_TAGS, mergeTags } from '../../../../lib/core/scoring/tags';

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

  it('cuts a tag to the longest a table key holds, never inside a surrogate pair', () => {
    const long = 'x'.repeat(3000);
    const [cut] = mergeTags({ headerValue: long });
    const [emoji] = mergeTags({ metadataTags: [`${'a'.repeat(MAX_TAG_CHARS - 1)}😀tail`] });

    expect(cut).toBe('x'.repeat(MAX_TAG_CHARS));
    expect(mergeTags({ user: long })).toEqual([`user:${'x'.repeat(MAX_TAG_CHARS - 'user:'.length)}`]);
    expect(emoji).toBe('a'.repeat(MAX_TAG_CHARS - 1));
    expect(Buffer.byteLength('😀'.repeat(MAX_TAG_CHARS / 2))).toBeLessThanOrEqual(1024);
  });

  it('replaces an unpaired surrogate, which the table cannot store', () => {
    expect(mergeTags({ metadataTags: ['a\ud800b', '\udc00', 'ok😀'] })).toEqual(['a\ufffdb', '\ufffd', 'ok😀']);
  });

  it(`keeps a request's first ${MAX_TAGS} tags`, () => {
    const many = Array.from({ length: 200 }, (_, index) => `t${index}`);
    const tags = mergeTags({ metadataTags: ['t0', ...many], headerValue: 'late', user: 'u' });

    expect(tags).toEqual(many.slice(0, MAX_TAGS));
  });

  it('is empty with no sources', () => {
    expect(mergeTags({})).toEqual([]);
  });
});
