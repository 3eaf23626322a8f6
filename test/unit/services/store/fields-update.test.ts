import { describe, expect, it } from '@jest/globals';
import { buildFieldsUpdate } from '../../../../lib/services/store/fields-update';
import {
  ejectionAttribute,
  ejectionValue,
  endedAttributes,
  publishedEjections,
} from '../../../../lib/services/store/published-ejections';

describe('buildFieldsUpdate', () => {
  it("sets the doc and string fields and removes others, leaving the item's other attributes alone", () => {
    const update = buildFieldsUpdate({
      doc: '{"id":"a"}',
      set: { 'ejection:image': '{}' },
      remove: ['ejection:ollama'],
    });

    expect(update).toEqual({
      UpdateExpression: 'SET #doc = :doc, #s0 = :s0 REMOVE #r0',
      ExpressionAttributeNames: { '#doc': 'doc', '#s0': 'ejection:image', '#r0': 'ejection:ollama' },
      ExpressionAttributeValues: { ':doc': { S: '{"id":"a"}' }, ':s0': { S: '{}' } },
    });
  });

  it('writes only onto an existing item when asked, and nothing for an empty update', () => {
    const update = buildFieldsUpdate({ set: { 'ejection:ollama': '{}' }, ifExists: true });

    expect(update?.ConditionExpression).toBe('attribute_exists(#pk)');
    expect(update?.ExpressionAttributeNames['#pk']).toBe('pk');
    expect(buildFieldsUpdate({})).toBeUndefined();
  });

  it("refuses the convention's attributes as fields", () => {
    expect(() => buildFieldsUpdate({ set: { pk: 'x' } })).toThrow('"pk"');
    expect(() => buildFieldsUpdate({ remove: ['expiresAt'] })).toThrow('"expiresAt"');
  });
});

describe('publishedEjections', () => {
  const ejection = {
    nodeId: 'gpu1',
    backend: 'ollama',
    at: 1000,
    until: 31_000,
    reason: 'no first byte in time: no headers in 2000 ms',
    level: 1,
    cause: 'first-byte-timeout',
    by: 'instance-a',
  } as const;

  it("reads back what was published on the node's item, naming the node and the service", () => {
    const item = {
      pk: 'NODE',
      sk: 'gpu1',
      doc: '{}',
      attributes: { [ejectionAttribute(ejection)]: ejectionValue(ejection), counter: 3 },
    };

    expect(ejectionAttribute(ejection)).toBe('ejection:ollama:1000');
    expect(publishedEjections(item)).toEqual([ejection]);
  });

  it('reads the older form without the time, and removes it with the newer names it ends', () => {
    const later = { ...ejection, at: 2000, until: 32_000 };
    const item = {
      pk: 'NODE',
      sk: 'gpu1',
      attributes: { 'ejection:ollama': ejectionValue(ejection), [ejectionAttribute(later)]: ejectionValue(later) },
    };

    expect(publishedEjections(item)).toEqual([ejection, later]);
    expect(endedAttributes([later])).toEqual(['ejection:ollama:2000', 'ejection:ollama']);
  });

  it('skips an attribute that does not parse, names an unknown service or cause', () => {
    const item = {
      pk: 'NODE',
      sk: 'gpu1',
      attributes: {
        'ejection:ollama': 'not json',
        'ejection:gpu': ejectionValue(ejection),
        'ejection:image': JSON.stringify({ ...ejection, cause: 'bad-luck' }),
        'ejection:transcription': JSON.stringify({ ...ejection, until: 'later' }),
        'ejection:ollama:soon': ejectionValue(ejection),
      },
    };

    expect(publishedEjections(item)).toEqual([]);
  });
});
