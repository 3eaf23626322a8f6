/**
 * Model-pull leases on the in-process table: one holder per model; renewed, released and never taken back
 * by anyone but its holder; free to the millisecond once it has lapsed (a dead holder's lock).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { lockKey } from '../../../../lib/services/store/keys';
import { createPullLockRepository, PULL_LEASE_MS } from '../../../../lib/services/store/pull-lock-repository';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

let store: StoreFixture;

beforeAll(async () => {
  store = await startStore('pull-lock');
});

afterAll(async () => {
  await store.close();
});

/** A clock the test moves; it starts in 2030, so items it writes are live to the table's own clock. */
function clockAt(start: number): { now: () => number; set: (at: number) => void } {
  let at = start;
  return { now: () => at, set: (next) => (at = next) };
}

const itemOf = (model: string) => {
  const { pk, sk } = lockKey(`PULL#${model}`);
  return store.table.getDoc(pk, sk);
};

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

  it('stores the lease under LOCK#PULL#<model>: the owner, its end in ms and a whole-second TTL not before it', async () => {
    const clock = clockAt(Date.UTC(2030, 0, 1, 0, 0, 0, 250));
    const locks = createPullLockRepository(store.table, { now: clock.now, ownerId: () => 'owner-1' });
    const { pk } = lockKey('PULL#stored:latest');

    const lease = await locks.acquire('stored:latest', { nodeId: 'gpu9' });
    const item = await itemOf('stored:latest');
    await lease?.release();

    expect(pk).toBe('LOCK#PULL#stored:latest');
    expect(lease?.leaseMs).toBe(PULL_LEASE_MS);
    expect(JSON.parse(item?.doc ?? '{}')).toEqual({ owner: 'owner-1', nodeId: 'gpu9', startedAt: clock.now() });
    expect(item?.attributes['leaseUntilMs']).toBe(clock.now() + PULL_LEASE_MS);
    expect(item?.expiresAt).toBe(Math.ceil((clock.now() + PULL_LEASE_MS) / 1000));
    expect(await itemOf('stored:latest')).toBeUndefined();
  });

  it('counts a lapsed lease as free from the millisecond after its end, not from a later whole second', async () => {
    // Taken at .100 s for 1 s: it ends at .100 of the next second; its whole-second TTL is a second later.
    const clock = clockAt(Date.UTC(2030, 0, 2, 0, 0, 0, 100));
    const crashed = await createPullLockRepository(store.table, { now: clock.now, leaseMs: 1000 }).acquire(
      'crashy:latest',
      { nodeId: 'gpu1' },
    );
    const later = createPullLockRepository(store.table, { now: clock.now, leaseMs: 1000 });

    clock.set(clock.now() + 1000);
    const atItsEnd = await later.acquire('crashy:latest', { nodeId: 'gpu2' });
    clock.set(clock.now() + 1);
    const takeover = await later.acquire('crashy:latest', { nodeId: 'gpu2' });
    await crashed?.release();
    const whileHeld = await later.acquire('crashy:latest', { nodeId: 'gpu3' });
    await takeover?.release();

    expect(crashed).toBeDefined();
    expect(atItsEnd).toBeUndefined();
    expect(takeover).toBeDefined();
    // The crashed holder's release left the new holder's lock alone.
    expect(whileHeld).toBeUndefined();
  });

  it('renews a lease by a lifetime from now, so it outlives its first end', async () => {
    const clock = clockAt(Date.UTC(2030, 0, 3, 0, 0, 0, 0));
    const locks = createPullLockRepository(store.table, { now: clock.now, leaseMs: 1000 });
    const lease = await locks.acquire('renewed:latest', { nodeId: 'gpu1' });

    clock.set(clock.now() + 800);
    const renewed = await lease?.renew();
    const renewedUntil = (await itemOf('renewed:latest'))?.attributes['leaseUntilMs'];
    clock.set(clock.now() + 1000);
    const pastFirstEnd = await locks.acquire('renewed:latest', { nodeId: 'gpu2' });
    clock.set(clock.now() + 1);
    const pastRenewedEnd = await locks.acquire('renewed:latest', { nodeId: 'gpu2' });
    await pastRenewedEnd?.release();

    expect(renewed).toBe(true);
    expect(renewedUntil).toBe(Date.UTC(2030, 0, 3, 0, 0, 1, 800));
    expect(pastFirstEnd).toBeUndefined();
    expect(pastRenewedEnd).toBeDefined();
  });

  it("never renews a lease another pull took over: the renewal fails and the new holder's lock is untouched", async () => {
    const clock = clockAt(Date.UTC(2030, 0, 4, 0, 0, 0, 0));
    const locks = createPullLockRepository(store.table, { now: clock.now, leaseMs: 1000 });
    const stale = await locks.acquire('taken:latest', { nodeId: 'gpu1' });
    clock.set(clock.now() + 1001);
    const takeover = await locks.acquire('taken:latest', { nodeId: 'gpu2' });
    const taken = await itemOf('taken:latest');

    clock.set(clock.now() + 500);
    const renewed = await stale?.renew();
    const after = await itemOf('taken:latest');
    await takeover?.release();

    expect(takeover).toBeDefined();
    expect(renewed).toBe(false);
    expect(after).toEqual(taken);
    expect(JSON.parse(after?.doc ?? '{}')).toMatchObject({ nodeId: 'gpu2' });
  });

  it('never brings back a released lease: renewing it afterwards fails and writes nothing', async () => {
    const clock = clockAt(Date.UTC(2030, 0, 5, 0, 0, 0, 0));
    const lease = await createPullLockRepository(store.table, { now: clock.now }).acquire('gone:latest', {
      nodeId: 'gpu1',
    });
    const { pk, sk } = lockKey('PULL#gone:latest');
    await lease?.release();

    const renewed = await lease?.renew();
    // Even had the handle not known it was released, the table refuses to renew an item that is gone.
    const raw = await store.table.renewLease(pk, sk, JSON.stringify({ any: 'doc' }), clock.now() + 1000);

    expect(renewed).toBe(false);
    expect(raw).toBe(false);
    expect(await itemOf('gone:latest')).toBeUndefined();
  });

  it('renews by the owner only: the same key with another doc is not renewed', async () => {
    const clock = clockAt(Date.UTC(2030, 0, 6, 0, 0, 0, 0));
    const lease = await createPullLockRepository(store.table, { now: clock.now, leaseMs: 1000 }).acquire(
      'owned:latest',
      { nodeId: 'gpu1' },
    );
    const { pk, sk } = lockKey('PULL#owned:latest');
    const before = await itemOf('owned:latest');

    const stranger = await store.table.renewLease(
      pk,
      sk,
      JSON.stringify({ owner: 'someone-else' }),
      clock.now() + 9000,
    );
    const after = await itemOf('owned:latest');
    await lease?.release();

    expect(stranger).toBe(false);
    expect(after).toEqual(before);
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

  it('frees a lock item without a lease end (a plain lock) once its whole-second TTL has passed', async () => {
    const { pk, sk } = lockKey('PULL#plain:latest');
    const clock = clockAt(Date.UTC(2030, 0, 7, 0, 0, 0, 0));
    await store.table.putDoc({ pk, sk, doc: '{"owner":"old"}', expiresAt: clock.now() / 1000 + 10 });
    const locks = createPullLockRepository(store.table, { now: clock.now });

    clock.set(clock.now() + 10_999);
    const within = await locks.acquire('plain:latest', { nodeId: 'gpu1' });
    clock.set(clock.now() + 1);
    const after = await locks.acquire('plain:latest', { nodeId: 'gpu1' });
    await after?.release();

    expect(within).toBeUndefined();
    expect(after).toBeDefined();
  });
});
