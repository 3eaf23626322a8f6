import { describe, expect, it } from '@jest/globals';
import { createReadCache } from '../../../../lib/services/analytics/read-cache';

describe('createReadCache', () => {
  const counting = () => {
    let reads = 0;
    return { load: async () => ++reads, reads: () => reads };
  };

  it('answers the same key from one read within the time to live, and reads again after it', async () => {
    let now = 0;
    const cache = createReadCache({ ttlMs: 2000, clock: () => now });
    const source = counting();

    const first = await cache.get('usage?days=7', source.load);
    now = 1999;
    const second = await cache.get('usage?days=7', source.load);
    now = 2000;
    const third = await cache.get('usage?days=7', source.load);

    expect([first, second, third]).toEqual([1, 1, 2]);
  });

  it('shares one read between concurrent requests and keeps distinct keys apart', async () => {
    const cache = createReadCache({ clock: () => 0 });
    const source = counting();

    const values = await Promise.all([
      cache.get('a', source.load),
      cache.get('a', source.load),
      cache.get('b', source.load),
    ]);

    expect(values).toEqual([1, 1, 2]);
    expect(source.reads()).toBe(2);
  });

  it('does not keep a failed read', async () => {
    const cache = createReadCache({ clock: () => 0 });
    await expect(cache.get('a', async () => Promise.reject(new Error('table down')))).rejects.toThrow('table down');

    await expect(cache.get('a', async () => 'fresh')).resolves.toBe('fresh');
  });

  it('keeps at most maxEntries keys, dropping the oldest', async () => {
    const cache = createReadCache({ clock: () => 0, maxEntries: 2 });
    const source = counting();
    await cache.get('a', source.load);
    await cache.get('b', source.load);
    await cache.get('c', source.load);

    await expect(cache.get('a', source.load)).resolves.toBe(4);
    await expect(cache.get('c', source.load)).resolves.toBe(3);
  });
});
