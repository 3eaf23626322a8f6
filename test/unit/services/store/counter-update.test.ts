import { describe, expect, it } from '@jest/globals';
import {
  buildCounterUpdate,
  MAX_COUNTERS_PER_UPDATE,
  splitCounters,
} from '../../../../lib/services/store/counter-update';

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

  it('raises maxima with a SET on the condition that each is absent or at most its new value', () => {
    expect(buildCounterUpdate({ requests: 1 }, {}, { max_total_tokens: 900, last_at: 1_700_000_000_000 })).toEqual({
      UpdateExpression: 'ADD #c0 :c0 SET #m0 = :m0, #m1 = :m1',
      ExpressionAttributeNames: { '#c0': 'requests', '#m0': 'max_total_tokens', '#m1': 'last_at' },
      ExpressionAttributeValues: { ':c0': { N: '1' }, ':m0': { N: '900' }, ':m1': { N: '1700000000000' } },
      ConditionExpression: '(attribute_not_exists(#m0) OR #m0 <= :m0) AND (attribute_not_exists(#m1) OR #m1 <= :m1)',
    });
    expect(() => buildCounterUpdate({}, {}, { last_at: Number.POSITIVE_INFINITY })).toThrow(/maximum/);
  });
});

describe('splitCounters', () => {
  it('keeps every part within DynamoDB’s 4 KB expression limit, with the set fields and maxima of a rollup', () => {
    // Four histograms of 240 buckets each and every rollup counter: far more than any rollup holds.
    const counters: Record<string, number> = {};
    for (const prefix of ['hl', 'ht', 'hp', 'hn'])
      for (let bucket = 0; bucket < 240; bucket++) counters[`${prefix}${bucket}`] = 123456789;
    for (let index = 0; index < 18; index++) counters[`counter_${index}`] = 1;
    const maxima = { max_prompt_tokens: 1e9, max_total_tokens: 1e9, last_at: 1.7e12 };

    const parts = splitCounters(counters);

    expect(parts.length).toBe(Math.ceil((4 * 240 + 18) / MAX_COUNTERS_PER_UPDATE));
    expect(Object.assign({}, ...parts)).toEqual(counters);
    for (const part of parts) {
      const update = buildCounterUpdate(part, { expiresAt: 1_900_000_000 }, maxima);
      expect(Buffer.byteLength(update?.UpdateExpression ?? '')).toBeLessThanOrEqual(4096);
      expect(Buffer.byteLength(update?.ConditionExpression ?? '')).toBeLessThanOrEqual(4096);
    }
  });

  it('gives one empty part for no counters', () => {
    expect(splitCounters({})).toEqual([{}]);
  });
});
