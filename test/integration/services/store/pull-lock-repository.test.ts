/** Model-pull locks on the in-process table: one holder per model, released only by its holder, expiring after a crash. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { lockKey } from '../../../../lib/services/store/keys';
import { createPullLockRepository, PULL_LOCK_TTL_MS } from '../../../../lib/services/store/pull-lock-repository';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

let store: StoreFixture;

beforeAll(async () => {
  store = await startStore('pull-lock');
});

afterAll(async () => {
  await store.close();
});

describe('createPullLockRepository', () => {
  it('gives the lock to one pull and refuses a second until the first releases it', async () => {
    const locks = createPullLockRepository(store.table);

    const first = await locks.acquire('llama3:latest', { nodeId: 'gpu1' });
    const second = await locks.acquire('llama3:latest', { nodeId: 'gpu2' });
    await first?.release();
    const third = await locks.acquire('llama3:latest', { nodeId: 'gpu2' });
    await third?.release();

    expect(first).toBeDefined();
    expect(second).toBeUndefined();
    expect(third).toBeDefined();
  });

  it('holds across instances: a second repository on the same table is refused too', async () => {
    const held = await createPullLockRepository(store.table).acquire('qwen3:8b', { nodeId: 'gpu1' });

    const elsewhere = await createPullLockRepository(store.table).acquire('qwen3:8b', { nodeId: 'gpu1' });
    await held?.release();

    expect(elsewhere).toBeUndefined();
  });

  it('locks each model on its own', async () => {
    const locks = createPullLockRepository(store.table);

    const a = await locks.acquire('model-a:latest', { nodeId: 'gpu1' });
    const b = await locks.acquire('model-b:latest', { nodeId: 'gpu1' });
    await a?.release();
    await b?.release();

    expect(a).toBeDefined();
    expect(b).toBeDefined();
  });

  it('stores the lock under LOCK#PULL#<model> with the owner and a TTL', async () => {
    const now = Date.UTC(2030, 0, 1);
    const locks = createPullLockRepository(store.table, { now: () => now, ownerId: () => 'owner-1' });
    const { pk, sk } = lockKey('PULL#stored:latest');

    const lease = await locks.acquire('stored:latest', { nodeId: 'gpu9' });
    const item = await store.table.getDoc(pk, sk);
    await lease?.release();

    expect(pk).toBe('LOCK#PULL#stored:latest');
    expect(JSON.parse(item?.doc ?? '{}')).toEqual({ owner: 'owner-1', nodeId: 'gpu9', startedAt: now });
    expect(item?.expiresAt).toBe((now + PULL_LOCK_TTL_MS) / 1000);
    expect(await store.table.getDoc(pk, sk)).toBeUndefined();
  });

  it("lets a pull take over the expired lock of a crashed instance, and the old holder's release leaves it alone", async () => {
    let now = Date.now();
    const crashed = createPullLockRepository(store.table, { now: () => now, ttlMs: 1000 });
    const stale = await crashed.acquire('crashy:latest', { nodeId: 'gpu1' });

    now += 5000;
    const later = createPullLockRepository(store.table, { now: () => now });
    const takeover = await later.acquire('crashy:latest', { nodeId: 'gpu2' });
    await stale?.release();
    const whileHeld = await later.acquire('crashy:latest', { nodeId: 'gpu3' });
    await takeover?.release();

    expect(stale).toBeDefined();
    expect(takeover).toBeDefined();
    expect(whileHeld).toBeUndefined();
  });

  it('releases once: a second release is harmless', async () => {
    const locks = createPullLockRepository(store.table);
    const lease = await locks.acquire('twice:latest', { nodeId: 'gpu1' });

    await lease?.release();
    await lease?.release();
    const again = await locks.acquire('twice:latest', { nodeId: 'gpu1' });
    await again?.release();

    expect(again).toBeDefined();
  });
});
