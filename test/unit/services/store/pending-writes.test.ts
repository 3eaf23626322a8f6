import { describe, expect, it } from '@jest/globals';
import { MAX_COUNTERS_PER_UPDATE } from '../../../../lib/services/store/counter-update';
import { createPendingWrites } from '../../../../lib/services/store/pending-writes';

const doc = (sk: string, value: string) => ({ pk: 'P', sk, doc: value });

describe('pending writes', () => {
  it('replaces a queued put of the same key and sums increments to the same key', () => {
    const pending = createPendingWrites(25);

    expect(pending.put(doc('a', '1'))).toBe(false);
    expect(pending.put(doc('a', '2'))).toBe(true);
    expect(pending.add('C', 'x', { n: 1 }, { model: 'a' })).toBe(false);
    expect(pending.add('C', 'x', { n: 2, m: 1 }, { model: 'b' })).toBe(true);

    expect(pending.takePuts('all')).toEqual([doc('a', '2')]);
    expect(pending.takeCounters('all')).toEqual([
      { pk: 'C', sk: 'x', counters: { n: 3, m: 1 }, set: { model: 'b' }, maxima: {} },
    ]);
    expect(pending.putCount() + pending.counterCount()).toBe(0);
  });

  it('takes only whole batches in the full scope', () => {
    const pending = createPendingWrites(2);
    for (const sk of ['a', 'b', 'c', 'd', 'e']) pending.put(doc(sk, sk));
    pending.add('C', 'x', { n: 1 }, {});

    expect(pending.takePuts('full').map((item) => item.sk)).toEqual(['a', 'b', 'c', 'd']);
    expect(pending.takeCounters('full')).toEqual([]);
    expect(pending.putCount()).toBe(1);
  });

  it('puts failed writes back without undoing newer ones', () => {
    const pending = createPendingWrites(25);
    pending.put(doc('a', 'newer'));
    pending.add('C', 'x', { n: 10 }, { model: 'newer' });

    pending.requeuePut(doc('a', 'failed'));
    pending.requeuePut(doc('b', 'failed'));
    pending.requeueCounters({
      pk: 'C',
      sk: 'x',
      counters: { n: 1 },
      set: { model: 'failed', node: 'n1' },
      maxima: { top: 7 },
    });

    expect(pending.takePuts('all').map((item) => item.doc)).toEqual(['newer', 'failed']);
    expect(pending.takeCounters('all')).toEqual([
      { pk: 'C', sk: 'x', counters: { n: 11 }, set: { model: 'newer', node: 'n1' }, maxima: { top: 7 } },
    ]);
  });

  it('merges maxima to the larger of each', () => {
    const pending = createPendingWrites(25);
    pending.add('C', 'x', { n: 1 }, {}, { top: 5, last: 10 });
    pending.add('C', 'x', { n: 1 }, {}, { top: 3, last: 12, other: 1 });

    expect(pending.takeCounters('all')).toEqual([
      { pk: 'C', sk: 'x', counters: { n: 2 }, set: {}, maxima: { top: 5, last: 12, other: 1 } },
    ]);
  });

  it('takes a write of more counters than one update carries as several, maxima in the first', () => {
    const pending = createPendingWrites(25);
    const counters = Object.fromEntries(
      Array.from({ length: 2 * MAX_COUNTERS_PER_UPDATE + 1 }, (_, i) => [`h${i}`, 1]),
    );
    pending.add('C', 'x', counters, { expiresAt: 2_000_000_000 }, { top: 5 });

    const writes = pending.takeCounters('all');

    expect(writes.map((write) => Object.keys(write.counters).length)).toEqual([
      MAX_COUNTERS_PER_UPDATE,
      MAX_COUNTERS_PER_UPDATE,
      1,
    ]);
    expect(writes.map((write) => write.maxima)).toEqual([{ top: 5 }, {}, {}]);
    expect(writes.every((write) => write.set['expiresAt'] === 2_000_000_000)).toBe(true);
    expect(Object.assign({}, ...writes.map((write) => write.counters))).toEqual(counters);
  });

  it('refuses a non-finite maximum', () => {
    expect(() => createPendingWrites(25).add('C', 'x', {}, {}, { top: Number.NaN })).toThrow(/maximum/);
  });

  it('refuses a non-finite increment', () => {
    expect(() => createPendingWrites(25).add('C', 'x', { n: Number.POSITIVE_INFINITY }, {})).toThrow(/incremented/);
  });
});
