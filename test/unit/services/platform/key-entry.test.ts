import { describe, expect, it } from '@jest/globals';
import { parseKeyEntry } from '../../../../lib/services/platform/key-entry';

describe('parseKeyEntry', () => {
  it('reads a leading name', () => {
    expect(parseKeyEntry('team-a:sk-123')).toEqual({ name: 'team-a', key: 'sk-123' });
    expect(parseKeyEntry('ops_1.eu:k')).toEqual({ name: 'ops_1.eu', key: 'k' });
  });

  it('takes a key without a name whole', () => {
    expect(parseKeyEntry('sk-123')).toEqual({ name: undefined, key: 'sk-123' });
  });

  it('keeps every colon after the name in the key', () => {
    expect(parseKeyEntry('ci:user:secret')).toEqual({ name: 'ci', key: 'user:secret' });
  });

  it.each(['abc/def:ghi', ':x', 'x:', 'with space:k', `${'n'.repeat(65)}:k`])(
    'takes %s whole: what precedes its colon is no name, or nothing follows it',
    (entry) => {
      expect(parseKeyEntry(entry)).toEqual({ name: undefined, key: entry });
    },
  );
});
