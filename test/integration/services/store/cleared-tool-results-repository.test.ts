import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createStickyClearedIds } from '../../../../lib/services/context-layers/sticky-cleared-ids';
import { createClearedToolResultsRepository } from '../../../../lib/services/store/cleared-tool-results-repository';
import { clearedToolResultsKey } from '../../../../lib/services/store/keys';
import { createWriteBehind } from '../../../../lib/services/store/write-behind';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

let store: StoreFixture;

beforeAll(async () => {
  store = await startStore('cleared-tool-results');
});

afterAll(async () => {
  await store.close();
});

describe('createClearedToolResultsRepository', () => {
  it('reads back the ids it wrote behind, with their expiry', async () => {
    const queue = createWriteBehind(store.table);
    const repository = createClearedToolResultsRepository(store.table, queue);
    const expiresAt = Date.now() + 60_000;

    repository.save('conv:abc', ['toolu_1', 'toolu_2'], expiresAt);
    await queue.close();

    expect(await repository.load('conv:abc')).toEqual({ ids: ['toolu_1', 'toolu_2'], expiresAt });
  });

  it('keeps one item per conversation, under its own partition, with the TTL in seconds', async () => {
    const queue = createWriteBehind(store.table);
    const repository = createClearedToolResultsRepository(store.table, queue);
    const expiresAt = Date.now() + 60_000;

    repository.save('session:a#b', ['call_0'], expiresAt);
    repository.save('session:a#b', ['call_0', 'call_1'], expiresAt);
    await queue.close();
    const { pk, sk } = clearedToolResultsKey('session:a#b');
    const item = await store.table.getDoc(pk, sk);

    expect(pk).toBe('CLEARED#session:a#b');
    expect(item?.expiresAt).toBe(Math.ceil(expiresAt / 1000));
    expect(await repository.load('session:a#b')).toMatchObject({ ids: ['call_0', 'call_1'] });
  });

  it('finds nothing for a conversation never cleared, nor for an expired one', async () => {
    const queue = createWriteBehind(store.table);
    const repository = createClearedToolResultsRepository(store.table, queue);

    repository.save('conv:old', ['call_0'], Date.now() - 5000);
    await queue.close();

    expect(await repository.load('conv:never')).toBeUndefined();
    expect(await repository.load('conv:old')).toBeUndefined();
  });

  it('lets a second instance pick up the cut the first one made', async () => {
    const queue = createWriteBehind(store.table);
    const first = createStickyClearedIds({ store: createClearedToolResultsRepository(store.table, queue) });
    const second = createStickyClearedIds({ store: createClearedToolResultsRepository(store.table, queue) });

    first.remember('conv:shared', ['toolu_a', 'toolu_b']);
    await queue.flush();

    expect([...(await second.load('conv:shared'))]).toEqual(['toolu_a', 'toolu_b']);
    await queue.close();
  });
});
