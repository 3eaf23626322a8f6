import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createQueueStateRepository } from '../../../../lib/services/store/queue-state-repository';
import { createWriteBehind } from '../../../../lib/services/store/write-behind';
import { makeQueueState } from '../../../helpers/factories';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

let store: StoreFixture;

beforeAll(async () => {
  store = await startStore('queue-state');
});

afterAll(async () => {
  await store.close();
});

const entry = (nodeId: string, inFlight: number) => makeQueueState({ nodeId, model: 'm', inFlight });

describe('createQueueStateRepository', () => {
  it("returns every live instance's entries and leaves out stale ones", async () => {
    const now = Date.now();
    const queue = createWriteBehind(store.table);
    const states = createQueueStateRepository(store.table, queue);

    states.publish('instance-1', [entry('a', 1)], now);
    states.publish('instance-2', [entry('a', 2)], now - 1000);
    states.publish('instance-gone', [entry('a', 9)], now - 60_000);
    states.publish('instance-1', [entry('a', 3)], now);
    await queue.close();

    const live = await states.live(now);

    expect(live.map((item) => item.inFlight).sort()).toEqual([2, 3]);
  });

  it("leaves out the asking instance's own entries when told to", async () => {
    const now = Date.now();
    const queue = createWriteBehind(store.table);
    const states = createQueueStateRepository(store.table, queue);

    states.publish('instance-self', [entry('z', 4)], now);
    states.publish('instance-other', [entry('z', 5)], now);
    await queue.close();

    const live = await states.live(now, { exceptInstanceId: 'instance-self' });

    expect(live.filter((item) => item.nodeId === 'z').map((item) => item.inFlight)).toEqual([5]);
  });

  it('gives every live instance its own publication, its own included, with what it published', async () => {
    const now = Date.now();
    const queue = createWriteBehind(store.table);
    const states = createQueueStateRepository(store.table, queue);

    states.publish('claims-self', [entry('y', 1)], now);
    states.publish('claims-other', [entry('y', 3)], now - 500);
    states.publish('claims-gone', [entry('y', 9)], now - 60_000);
    await queue.close();

    const instances = (await states.instances(now)).filter((published) => published.instanceId.startsWith('claims-'));

    expect(instances.map((published) => [published.instanceId, published.at]).sort()).toEqual([
      ['claims-other', now - 500],
      ['claims-self', now],
    ]);
    expect(instances.find((published) => published.instanceId === 'claims-self')?.entries[0]?.inFlight).toBe(1);
  });
});
