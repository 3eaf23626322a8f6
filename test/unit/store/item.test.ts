import { describe, expect, it } from '@jest/globals';
import { isLive, marshalDocItem, unmarshalItem } from '../../../lib/store/item';

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

  it('skips an item without keys', () => {
    expect(unmarshalItem({ doc: { S: '{}' } })).toBeUndefined();
  });

  it('treats an item as live through its expiry second (DynamoDB TTL deletes below it)', () => {
    expect(isLive({}, 100)).toBe(true);
    expect(isLive({ expiresAt: 100 }, 100)).toBe(true);
    expect(isLive({ expiresAt: 99 }, 100)).toBe(false);
  });
});
