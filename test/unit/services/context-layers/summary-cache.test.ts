import { describe, expect, it } from '@jest/globals';
import { createSummaryCache, SUMMARY_TTL_MS } from '../../../../lib/services/context-layers/summary-cache';
import { summaryStore } from './fake-stores';

const quiet = () => undefined;

describe('createSummaryCache', () => {
  it('answers from memory what it has put, writing it to the store too', async () => {
    const store = summaryStore();
    const cache = createSummaryCache({ store, log: quiet });

    cache.put('k', '[summarised 2000→12 tokens]\nshort');

    expect(await cache.get('k')).toBe('[summarised 2000→12 tokens]\nshort');
    expect(store.loads).toEqual([]);
    expect(store.items.get('k')).toBe('[summarised 2000→12 tokens]\nshort');
  });

  it('reads what it does not know from the store, once', async () => {
    const store = summaryStore();
    store.items.set('k', 'from the table');
    const cache = createSummaryCache({ store, log: quiet });

    expect(await cache.get('k')).toBe('from the table');
    expect(await cache.get('k')).toBe('from the table');
    expect(store.loads).toEqual(['k']);
  });

  it('treats a failing store as a miss', async () => {
    const lines: string[] = [];
    const cache = createSummaryCache({
      store: { load: () => Promise.reject(new Error('down')), save: () => undefined },
      log: (line) => lines.push(line),
    });

    expect(await cache.get('k')).toBeUndefined();
    expect(lines).toHaveLength(1);
  });

  it('keeps summaries in the table for 30 days', () => {
    const saved: number[] = [];
    const cache = createSummaryCache({
      store: { load: async () => undefined, save: (_key, _text, expiresAt) => saved.push(expiresAt) },
      clock: () => 1000,
    });

    cache.put('k', 'text');

    expect(saved).toEqual([1000 + SUMMARY_TTL_MS]);
  });
});
