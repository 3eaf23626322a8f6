import { describe, expect, it } from '@jest/globals';
import { CLEARED_IDS_TTL_MS, createStickyClearedIds } from '../../../../lib/services/context-layers/sticky-cleared-ids';
import { clearedIdsStore } from './fake-stores';

const NOW = 1_800_000_000_000;
const quiet = () => undefined;

describe('createStickyClearedIds', () => {
  it('reads a conversation the instance does not know from the store, once', async () => {
    const store = clearedIdsStore();
    store.items.set('conv:a', { ids: ['call_0', 'call_1'], expiresAt: NOW + 1000 });
    const sticky = createStickyClearedIds({ store, clock: () => NOW, log: quiet });

    const first = await sticky.load('conv:a');
    const second = await sticky.load('conv:a');

    expect([...first]).toEqual(['call_0', 'call_1']);
    expect(second).toBe(first);
    expect(store.loads).toEqual(['conv:a']);
  });

  it('shares one read between turns that arrive together', async () => {
    const store = clearedIdsStore();
    const sticky = createStickyClearedIds({ store, clock: () => NOW, log: quiet });

    await Promise.all([sticky.load('conv:a'), sticky.load('conv:a')]);

    expect(store.loads).toEqual(['conv:a']);
  });

  it('remembers what a conversation has nothing stored, so the next turn does not ask again', async () => {
    const store = clearedIdsStore();
    const sticky = createStickyClearedIds({ store, clock: () => NOW, log: quiet });

    expect((await sticky.load('conv:a')).size).toBe(0);
    await sticky.load('conv:a');

    expect(store.loads).toHaveLength(1);
  });

  it('ignores an expired item', async () => {
    const store = clearedIdsStore();
    store.items.set('conv:a', { ids: ['call_0'], expiresAt: NOW - 1 });
    const sticky = createStickyClearedIds({ store, clock: () => NOW, log: quiet });

    expect((await sticky.load('conv:a')).size).toBe(0);
  });

  it('merges new ids and writes them behind with a fresh expiry', async () => {
    const store = clearedIdsStore();
    store.items.set('conv:a', { ids: ['call_0'], expiresAt: NOW + CLEARED_IDS_TTL_MS });
    const sticky = createStickyClearedIds({ store, clock: () => NOW, log: quiet });
    await sticky.load('conv:a');

    sticky.remember('conv:a', ['call_1', 'call_2']);

    expect(store.saves).toEqual([
      { key: 'conv:a', ids: ['call_0', 'call_1', 'call_2'], expiresAt: NOW + CLEARED_IDS_TTL_MS },
    ]);
    expect([...(await sticky.load('conv:a'))]).toEqual(['call_0', 'call_1', 'call_2']);
  });

  it('writes nothing for a turn that added nothing while the stored expiry is young', async () => {
    const store = clearedIdsStore();
    const sticky = createStickyClearedIds({ store, clock: () => NOW, log: quiet });
    sticky.remember('conv:a', ['call_0']);

    sticky.remember('conv:a', []);
    sticky.remember('conv:a', ['call_0']);
    sticky.remember('conv:b', []);

    expect(store.saves.map((save) => save.key)).toEqual(['conv:a']);
  });

  it('refreshes the expiry once it is past half its life', async () => {
    let now = NOW;
    const store = clearedIdsStore();
    const sticky = createStickyClearedIds({ store, clock: () => now, log: quiet });
    sticky.remember('conv:a', ['call_0']);

    now += CLEARED_IDS_TTL_MS / 2 + 1;
    sticky.remember('conv:a', []);

    expect(store.saves.map((save) => save.expiresAt)).toEqual([NOW + CLEARED_IDS_TTL_MS, now + CLEARED_IDS_TTL_MS]);
  });

  it('keeps at most maxIds, forgetting the oldest', () => {
    const store = clearedIdsStore();
    const sticky = createStickyClearedIds({ store, clock: () => NOW, log: quiet, maxIds: 2 });

    sticky.remember('conv:a', ['call_0', 'call_1', 'call_2']);

    expect(store.saves[0]?.ids).toEqual(['call_1', 'call_2']);
  });

  it('goes on with nothing remembered when the store fails, and asks again next time', async () => {
    const lines: string[] = [];
    const store = clearedIdsStore({ load: () => Promise.reject(new Error('table down')) });
    const sticky = createStickyClearedIds({ store, clock: () => NOW, log: (line) => lines.push(line) });

    expect((await sticky.load('conv:a')).size).toBe(0);
    await sticky.load('conv:a');

    expect(store.loads).toHaveLength(2);
    expect(lines[0]).toContain('table down');
  });

  it('waits for a slow store no longer than loadTimeoutMs, and keeps its late answer', async () => {
    let answer: (value: { ids: string[]; expiresAt: number }) => void = () => undefined;
    const store = clearedIdsStore({ load: () => new Promise((resolve) => (answer = resolve)) });
    const lines: string[] = [];
    const sticky = createStickyClearedIds({
      store,
      clock: () => NOW,
      log: (line) => lines.push(line),
      loadTimeoutMs: 5,
    });

    const first = await sticky.load('conv:a');
    answer({ ids: ['call_0'], expiresAt: NOW + 1000 });
    await new Promise((resolve) => setImmediate(resolve));
    const second = await sticky.load('conv:a');

    expect(first.size).toBe(0);
    expect(lines[0]).toContain('took over 5 ms');
    expect([...second]).toEqual(['call_0']);
  });
});
