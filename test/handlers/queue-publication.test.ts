/**
 * An instance's queue depths reach every instance's `/fleet/queue` and `/fleet/status` through the
 * table, and they follow every change of a depth — not only the ones a finished stream reports. A
 * slot freed because its client left mid-dispatch, a waiter that gave up: each shows within about
 * two seconds (one publication a second, written behind within one more), against the stand-in. The
 * instance's own views read its own queues directly: what it holds shows there at once.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routes } from '../../functions/fleet';
import { initServices, type Services } from '../../lib/instance';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { makeQueueState } from '../helpers/factories';
import { HOSTS } from '../helpers/hosts';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

const MODEL = 'llama3.2:3b';

let store: StoreFixture;
let services: Services;

beforeAll(async () => {
  store = await startStore('queue-publication');
  services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
});

afterAll(async () => {
  await closeServices(services);
  await store.close();
});

/** What every instance's views read for node `gpu1`: the published state, polled until it is `expected`. */
async function publishedBecomes(expected: { inFlight: number; pending: number }, withinMs: number) {
  const deadline = Date.now() + withinMs;
  let seen: { inFlight: number | undefined; pending: number | undefined } = { inFlight: undefined, pending: undefined };
  while (Date.now() <= deadline) {
    await services.writeBehind.flush();
    const entry = (await services.queueStates.live(Date.now())).find((state) => state.nodeId === 'gpu1');
    seen = { inFlight: entry?.inFlight, pending: entry?.pending };
    if (seen.inFlight === expected.inFlight && seen.pending === expected.pending) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(seen).toEqual(expected);
}

describe('queue depth publication', () => {
  it('publishes a slot taken, a waiter that left and a slot released, each as it happens', async () => {
    const { queues } = services.routing;
    const slot = queues.tryAcquire('gpu1', MODEL, 1);
    if (slot === undefined) throw new Error('the slot should have been free');
    await publishedBecomes({ inFlight: 1, pending: 0 }, 2500);

    const controller = new AbortController();
    const waiting = queues.acquire('gpu1', MODEL, 1, controller.signal).catch((error: unknown) => error);
    await publishedBecomes({ inFlight: 1, pending: 1 }, 2500);
    controller.abort();
    await waiting;
    await publishedBecomes({ inFlight: 1, pending: 0 }, 2500);

    slot.release('cancelled');
    await publishedBecomes({ inFlight: 0, pending: 0 }, 2500);
  }, 15_000);

  it("shows this instance's own queues in /fleet/queue at once, and adds another instance's published ones", async () => {
    const [, host] = HOSTS[0] ?? [];
    if (host === undefined) throw new Error('no host');
    services.queueStates.publish(
      'other-instance',
      [makeQueueState({ nodeId: 'gpu1', model: MODEL, inFlight: 2 })],
      Date.now(),
    );
    await services.writeBehind.flush();
    const slot = services.routing.queues.tryAcquire('gpu1', MODEL, 1);
    if (slot === undefined) throw new Error('the slot should have been free');
    try {
      // No flush, no publication: read at once.
      const reply = await host(routes(services), makeHttpEvent({ method: 'GET', path: '/fleet/queue' }));
      const queues = (JSON.parse(reply.body) as { queues: Record<string, { in_flight: number }> }).queues;

      expect(queues[`gpu1:${MODEL}`]?.in_flight).toBe(3);
    } finally {
      slot.release('cancelled');
    }
  });
});
