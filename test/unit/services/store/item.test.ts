import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { DEFLATE_FROM_CHARS, isLive, marshalDocItem, unmarshalItem } from '../../../../lib/services/store/item';

describe('item marshalling', () => {
  it('writes only the attributes that are present', () => {
    expect(marshalDocItem({ pk: 'NODE', sk: 'a', doc: '{}' })).toEqual({
      pk: { S: 'NODE' },
      sk: { S: 'a' },
      doc: { S: '{}' },
    });
  });

  it('reads the convention back and keeps other strings and numbers as attributes', () => {
    const item = unmarshalItem({
      pk: { S: 'USAGE#m' },
      sk: { S: 'H#1' },
      gsi1pk: { S: 'USAGE' },
      gsi1sk: { S: '2026' },
      expiresAt: { N: '1800000000' },
      requests: { N: '3' },
      model: { S: 'm' },
      ignored: { BOOL: true },
    });

    expect(item).toEqual({
      pk: 'USAGE#m',
      sk: 'H#1',
      gsi1pk: 'USAGE',
      gsi1sk: '2026',
      expiresAt: 1_800_000_000,
      attributes: { requests: 3, model: 'm' },
    });
  });

  it('stores a large document deflated as a binary and reads it back as the same JSON', () => {
    const doc = JSON.stringify({ traces: Array.from({ length: 40 }, (_, index) => ({ index, note: 'é ✓ "q"' })) });
    const large = `${doc.slice(0, -1)},"padding":"${'x'.repeat(DEFLATE_FROM_CHARS)}"}`;
    const attributes = marshalDocItem({ pk: 'TRACE#d', sk: 'p', doc: large });
    expect(attributes['doc']?.S).toBeUndefined();
    expect(attributes['doc']?.B?.length).toBeLessThan(large.length / 4);
    expect(unmarshalItem(attributes)?.doc).toBe(large);
  });

  it('stores a document given as UTF-8 bytes as it stores the same text', () => {
    const small = '{"note":"é ✓"}';
    const large = JSON.stringify({ padding: 'é'.repeat(DEFLATE_FROM_CHARS) });
    for (const text of [small, large]) {
      const bytes = Buffer.from(`[${text}]`).subarray(1, -1);
      const fromBytes = marshalDocItem({ pk: 'TRACE#d', sk: 'p', doc: bytes });

      expect(fromBytes).toEqual(marshalDocItem({ pk: 'TRACE#d', sk: 'p', doc: text }));
      expect(unmarshalItem(fromBytes)?.doc).toBe(text);
    }
  });

  it('keeps a document just under the threshold as a string', () => {
    const doc = 'x'.repeat(DEFLATE_FROM_CHARS - 1);
    expect(marshalDocItem({ pk: 'a', sk: 'b', doc })['doc']).toEqual({ S: doc });
  });

  it('reads a binary doc that is not deflate data as an item without a document', () => {
    const item = unmarshalItem({ pk: { S: 'a' }, sk: { S: 'b' }, doc: { B: Buffer.from('not deflate') } });
    expect(item).toEqual({ pk: 'a', sk: 'b', attributes: {} });
    const good = unmarshalItem({ pk: { S: 'a' }, sk: { S: 'b' }, doc: { B: deflateRawSync('{"ok":true}') } });
    expect(good?.doc).toBe('{"ok":true}');
  });

  it('skips an item without keys', () => {
    expect(unmarshalItem({ doc: { S: '{}' } })).toBeUndefined();
  });

  it('treats an item as live through its expiry second (DynamoDB TTL deletes below it)', () => {
    expect(isLive({}, 100)).toBe(true);
    expect(isLive({ expiresAt: 100 }, 100)).toBe(true);
    expect(isLive({ expiresAt: 99 }, 100)).toBe(false);
  });
});
