import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Ejection } from '../../../../lib/core/fleet/ejection';
import { createFleetRegistry, type FleetRegistry } from '../../../../lib/services/registry/registry';
import { createNodeRepository } from '../../../../lib/services/store/node-repository';
import { makeHeartbeat, T0 } from '../../../helpers/factories';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

const config = { degradedAfterMs: 15_000, offlineAfterMs: 30_000, snapshotMaxAgeMs: 1000 };

let store: StoreFixture;
let now = T0;
const clock = () => now;

function registry(): FleetRegistry {
  return createFleetRegistry({ store: createNodeRepository(store.table), config, clock, log: () => undefined });
}

beforeAll(async () => {
  store = await startStore('registry');
});

afterAll(async () => {
  await store.close();
});

describe('createFleetRegistry', () => {
  it('registers a node from a heartbeat and answers online', async () => {
    const fleet = registry();

    const reply = await fleet.recordHeartbeat(makeHeartbeat({ node_id: 'reg-a' }), '10.0.0.5');
    const snapshot = await fleet.snapshot();

    expect(reply).toEqual({ status: 'ok', node_id: 'reg-a', node_status: 'online' });
    expect(snapshot.byId.get('reg-a')?.status).toBe('online');
    expect(snapshot.placements.get('llama3.2:3b')?.map((placement) => placement.node.id)).toContain('reg-a');
  });

  it('shares node state with another instance through the table', async () => {
    const first = registry();
    const second = registry();
    await second.snapshot();

    await first.recordHeartbeat(makeHeartbeat({ node_id: 'reg-shared' }));
    const before = await second.snapshot();
    const after = await second.refresh();

    expect(before.byId.has('reg-shared')).toBe(false);
    expect(after.byId.get('reg-shared')?.status).toBe('online');
  });

  it('serves the snapshot from memory, reading the next one in the background from half its bound', async () => {
    const reader = registry();
    const writer = registry();
    const first = await reader.snapshot();
    await writer.recordHeartbeat(makeHeartbeat({ node_id: 'reg-late' }));

    const fresh = await reader.snapshot();
    now += 600;
    const ageing = await reader.snapshot();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const refreshed = await reader.snapshot();

    expect(fresh).toBe(first);
    expect(ageing.byId.has('reg-late')).toBe(false);
    expect(refreshed.byId.has('reg-late')).toBe(true);
  });

  it('never routes on a snapshot past its bound: after a quiet second it reads the table first', async () => {
    const reader = registry();
    const writer = registry();
    await writer.recordHeartbeat(makeHeartbeat({ node_id: 'reg-quiet' }));
    expect((await reader.snapshot()).byId.get('reg-quiet')?.draining).toBe(false);
    await writer.recordDrain('reg-quiet', '10.0.0.5');

    now += 1100;
    expect(reader.ready()).toBeUndefined();
    const current = await reader.snapshot();

    expect(current.byId.get('reg-quiet')?.draining).toBe(true);
    expect(reader.ready()).toBe(current);
  });

  it('routes on the last snapshot after a short wait, saying how old it is, while the table does not answer', async () => {
    let hang = false;
    const repository = createNodeRepository(store.table);
    const hanging = {
      ...repository,
      listFleet: () => (hang ? new Promise<never>(() => {}) : repository.listFleet()),
    };
    const writer = registry();
    await writer.recordHeartbeat(makeHeartbeat({ node_id: 'reg-hang' }));
    const reader = createFleetRegistry({ store: hanging, config, clock, log: () => undefined });
    const read = await reader.snapshot();
    hang = true;

    now += 1100;
    const past = await reader.snapshot();
    now += 5000;
    const later = await reader.snapshot();

    expect(past.byId.has('reg-hang')).toBe(true);
    expect(later.byId.has('reg-hang')).toBe(true);
    expect(later.takenAt).toBe(now);
    expect(read.takenAt).toBe(now - 6100);
    expect(reader.freshness()).toEqual({ ageMs: 6100, refreshFailed: false });
  });

  it('stops waiting for reads once one failed, and says so until one succeeds', async () => {
    let fail = false;
    const repository = createNodeRepository(store.table);
    const failing = {
      ...repository,
      listFleet: () => (fail ? Promise.reject(new Error('table down')) : repository.listFleet()),
    };
    const reader = createFleetRegistry({ store: failing, config, clock, log: () => undefined });
    await reader.snapshot();
    fail = true;

    now += 1100;
    await reader.snapshot();
    const down = reader.freshness();
    fail = false;
    now += 1100;
    reader.ready();
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(down).toEqual({ ageMs: 1100, refreshFailed: true });
    expect(reader.ready()).toBeDefined();
    expect(reader.freshness()).toEqual({ ageMs: 0, refreshFailed: false });
  });

  it('keeps what it heard from a node in its own snapshot while the table does not take it', async () => {
    let down = false;
    const repository = createNodeRepository(store.table);
    const failing = {
      ...repository,
      get: (id: string) => (down ? Promise.reject(new Error('table down')) : repository.get(id)),
      put: (record: Parameters<typeof repository.put>[0]) =>
        down ? Promise.reject(new Error('table down')) : repository.put(record),
      listFleet: () => (down ? Promise.reject(new Error('table down')) : repository.listFleet()),
    };
    const fleet = createFleetRegistry({ store: failing, config, clock, log: () => undefined });
    await fleet.recordHeartbeat(makeHeartbeat({ node_id: 'reg-down' }));
    await fleet.snapshot();
    down = true;

    now += 20_000;
    const heartbeat = fleet.recordHeartbeat(makeHeartbeat({ node_id: 'reg-down' }));
    await expect(heartbeat).rejects.toThrow('table down');
    const snapshot = await fleet.snapshot();

    expect(snapshot.byId.get('reg-down')?.status).toBe('online');
    expect(fleet.freshness().refreshFailed).toBe(true);
  });

  it('keeps a record saved while a read was in flight, even when its lastSeenAt did not move', async () => {
    const repository = createNodeRepository(store.table);
    // The read answers with what the table held when it began, after the save below has landed.
    let answer = () => {};
    let lagging = false;
    const slow = {
      ...repository,
      listFleet: async () => {
        if (!lagging) return repository.listFleet();
        const before = await repository.listFleet();
        return new Promise<typeof before>((resolve) => {
          answer = () => resolve(before);
        });
      },
    };
    const fleet = createFleetRegistry({ store: slow, config, clock, log: () => undefined });
    await fleet.recordHeartbeat(makeHeartbeat({ node_id: 'reg-race' }));
    await fleet.snapshot();
    const before = await fleet.record('reg-race');
    if (before === undefined) throw new Error('the heartbeat was not recorded');
    lagging = true;

    const read = fleet.refresh();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // A model deleted on the node: the same record, one model fewer, `lastSeenAt` unchanged.
    await fleet.save({ ...before, models: [] });
    answer();
    const snapshot = await read;

    expect(snapshot.byId.get('reg-race')?.models).toEqual([]);
    expect((await fleet.record('reg-race'))?.models).toEqual([]);
  });

  it('has a snapshot ready without waiting only once one was read', async () => {
    const fleet = registry();
    expect(fleet.ready()).toBeUndefined();

    const read = await fleet.snapshot();
    expect(fleet.ready()).toBe(read);
  });

  it('ages a silent node to degraded, then offline, and back online on its next heartbeat', async () => {
    const fleet = registry();
    await fleet.recordHeartbeat(makeHeartbeat({ node_id: 'reg-aging' }));

    now += 15_100;
    const degraded = (await fleet.snapshot()).byId.get('reg-aging')?.status;
    now += 15_000;
    const offlineSnapshot = await fleet.snapshot();
    await fleet.recordHeartbeat(makeHeartbeat({ node_id: 'reg-aging' }));
    const back = (await fleet.snapshot()).byId.get('reg-aging')?.status;

    expect(degraded).toBe('degraded');
    expect(offlineSnapshot.byId.get('reg-aging')?.status).toBe('offline');
    expect(
      offlineSnapshot.placements.get('qwen3:32b')?.some((placement) => placement.node.id === 'reg-aging'),
    ).not.toBe(true);
    expect(back).toBe('online');
  });

  it('takes a draining node out at once and keeps it out for other instances', async () => {
    const fleet = registry();
    await fleet.recordHeartbeat(makeHeartbeat({ node_id: 'reg-drain' }));

    const reply = await fleet.recordDrain('reg-drain', '10.0.0.5');
    const local = await fleet.snapshot();
    const elsewhere = await registry().refresh();

    expect(reply).toEqual({ status: 'draining', node_id: 'reg-drain', node_status: 'offline' });
    expect(local.byId.get('reg-drain')?.status).toBe('offline');
    expect(elsewhere.byId.get('reg-drain')?.status).toBe('offline');
    expect(elsewhere.byId.get('reg-drain')?.draining).toBe(true);
  });

  it('remembers when a model dropped out of memory', async () => {
    const fleet = registry();
    await fleet.recordHeartbeat(makeHeartbeat({ node_id: 'reg-unload' }));
    now += 5000;

    await fleet.recordHeartbeat(
      makeHeartbeat({
        node_id: 'reg-unload',
        ollama: { ...makeHeartbeat().ollama, models_loaded: [], requests_active: 0 },
      }),
    );

    expect((await fleet.record('reg-unload'))?.recentlyUnloaded).toEqual({ 'llama3.2:3b': now });
  });

  it("asks the node's runtime about models a heartbeat named without metadata, and stops asking once one is described", async () => {
    const asked: string[][] = [];
    const fleet = createFleetRegistry({
      store: createNodeRepository(store.table),
      config,
      clock,
      describe: async (url, names) => {
        asked.push([url, ...names]);
        return new Map([['qwen3:32b', { capabilities: ['completion', 'tools', 'thinking'], contextLength: 40960 }]]);
      },
    });

    await fleet.recordHeartbeat(makeHeartbeat({ node_id: 'reg-describe' }));
    await fleet.recordHeartbeat(makeHeartbeat({ node_id: 'reg-describe' }));
    const model = (await fleet.record('reg-describe'))?.models.find((entry) => entry.name === 'qwen3:32b');

    expect(asked).toEqual([
      ['http://10.0.0.5:11434', 'llama3.2:3b', 'nomic-embed-text:latest', 'qwen3:32b'],
      ['http://10.0.0.5:11434', 'llama3.2:3b', 'nomic-embed-text:latest'],
    ]);
    expect(model?.capabilities).toEqual(['completion', 'tools', 'thinking']);
    expect(model?.contextLength).toBe(40960);
  });

  it('answers 503, not a crash, when the table cannot be read on a cold start', async () => {
    const fleet = createFleetRegistry({
      store: {
        put: async () => undefined,
        get: async () => undefined,
        list: async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:8000');
        },
      },
      config,
      clock,
    });

    await expect(fleet.snapshot()).rejects.toMatchObject({
      status: 503,
      message: expect.stringContaining('fleet state'),
    });
  });

  it('answers a drain for an unknown node without storing anything', async () => {
    const fleet = registry();

    await fleet.recordDrain('reg-never-seen');

    expect((await fleet.refresh()).byId.has('reg-never-seen')).toBe(false);
  });
});

describe('ejections shared through the table (issue 45)', () => {
  const hung = (nodeId: string, at: number): Ejection => ({
    nodeId,
    backend: 'ollama',
    at,
    until: at + 30_000,
    reason: 'no first byte in time: no headers in 2000 ms',
    level: 1,
    cause: 'first-byte-timeout',
    by: 'instance-a',
  });

  it("comes back with another instance's snapshot read, as an attribute of the node's item", async () => {
    const a = registry();
    const b = registry();
    await a.recordHeartbeat(makeHeartbeat({ node_id: 'ej-hung' }));
    const ejection = hung('ej-hung', now);

    const written = await a.publishEjection(ejection);
    const snapshot = await b.refresh();
    const item = await store.table.getDoc('NODE', 'ej-hung');

    expect(written).toBe(true);
    expect(snapshot.ejections?.filter((entry) => entry.nodeId === 'ej-hung')).toEqual([ejection]);
    expect(snapshot.byId.get('ej-hung')?.status).toBe('online');
    expect(Object.keys(item?.attributes ?? {})).toEqual([`ejection:ollama:${now}`]);
  });

  it('removes only the ejections its instance read: one another instance published since stands', async () => {
    const a = registry();
    const b = registry();
    await a.recordHeartbeat(makeHeartbeat({ node_id: 'ej-race' }));
    const refused: Ejection = { ...hung('ej-race', now), reason: 'could not connect: ECONNREFUSED', cause: 'connect' };
    await a.publishEjection(refused);
    await a.refresh();

    // B fails on the node again after A's read; then the node's heartbeat reaches A, which ends the one it read.
    now += 2_000;
    const again: Ejection = { ...refused, at: now, until: now + 30_000, by: 'instance-b' };
    await b.publishEjection(again);
    now += 1_000;
    await a.recordHeartbeat(makeHeartbeat({ node_id: 'ej-race' }));
    const item = await store.table.getDoc('NODE', 'ej-race');

    expect(Object.keys(item?.attributes ?? {})).toEqual([`ejection:ollama:${again.at}`]);
  });

  it('writes nothing for a node the table does not hold', async () => {
    const a = registry();

    const written = await a.publishEjection(hung('ej-unknown', now));

    expect(written).toBe(false);
    expect(await store.table.getDoc('NODE', 'ej-unknown')).toBeUndefined();
  });

  it("keeps a missed first byte's ejection over the node's heartbeats; a heartbeat ends a refused connect's", async () => {
    const a = registry();
    await a.recordHeartbeat(makeHeartbeat({ node_id: 'ej-both' }));
    const firstByte = hung('ej-both', now);
    const refused: Ejection = {
      ...firstByte,
      backend: 'image',
      reason: 'could not connect: ECONNREFUSED',
      cause: 'connect',
    };
    await a.publishEjection(firstByte);
    await a.publishEjection(refused);
    await a.refresh();

    now += 5_000;
    await a.recordHeartbeat(makeHeartbeat({ node_id: 'ej-both' }));
    const item = await store.table.getDoc('NODE', 'ej-both');
    const snapshot = await registry().refresh();

    expect(Object.keys(item?.attributes ?? {})).toEqual([`ejection:ollama:${firstByte.at}`]);
    expect(snapshot.ejections?.filter((ejection) => ejection.nodeId === 'ej-both')).toEqual([firstByte]);
    expect(snapshot.byId.get('ej-both')?.lastSeenAt).toBe(now);
  });

  it('drops an ejection that is over from the snapshot, and from the item at the next write', async () => {
    const a = registry();
    await a.recordHeartbeat(makeHeartbeat({ node_id: 'ej-over' }));
    await a.publishEjection(hung('ej-over', now));
    await a.refresh();

    now += 31_000;
    const snapshot = await registry().refresh();
    await a.recordHeartbeat(makeHeartbeat({ node_id: 'ej-over' }));
    const item = await store.table.getDoc('NODE', 'ej-over');

    expect(snapshot.ejections?.filter((ejection) => ejection.nodeId === 'ej-over') ?? []).toEqual([]);
    expect(item?.attributes).toEqual({});
  });
});
