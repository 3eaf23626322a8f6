import { describe, expect, it } from '@jest/globals';
import { buildCounterUpdate } from '../../../../lib/services/store/counter-update';

describe('buildCounterUpdate', () => {
  it('adds counters and sets fields through placeholders', () => {
    expect(buildCounterUpdate({ requests: 1, tokens: 0 }, { model: 'llama', expiresAt: 1_800_000_000 })).toEqual({
      UpdateExpression: 'ADD #c0 :c0, #c1 :c1 SET #s0 = :s0, #s1 = :s1',
      ExpressionAttributeNames: { '#c0': 'requests', '#c1': 'tokens', '#s0': 'model', '#s1': 'expiresAt' },
      ExpressionAttributeValues: {
        ':c0': { N: '1' },
        ':c1': { N: '0' },
        ':s0': { S: 'llama' },
        ':s1': { N: '1800000000' },
      },
    });
  });

  it('returns undefined when there is nothing to write', () => {
    expect(buildCounterUpdate({}, {})).toBeUndefined();
  });

  it('refuses non-finite increments, key attributes and a millisecond expiry', () => {
    expect(() => buildCounterUpdate({ requests: Number.NaN }, {})).toThrow(/incremented/);
    expect(() => buildCounterUpdate({ doc: 1 }, {})).toThrow(/cannot be a counter/);
    expect(() => buildCounterUpdate({}, { pk: 'x' })).toThrow(/key attribute/);
    expect(() => buildCounterUpdate({}, { expiresAt: Date.now() })).toThrow(/epoch seconds/);
  });
});
