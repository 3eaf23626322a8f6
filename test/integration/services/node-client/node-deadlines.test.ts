import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimNode, startSimNode } from '../../../../emulator/sim';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import { createModelDescriber } from '../../../../lib/services/node-client/describe-models';
import { callNodeJson } from '../../../../lib/services/node-client/node-client';
import { loadConfig } from '../../../../lib/services/platform/config';
import { createListedNodePolls } from '../../../../lib/services/registry/poll-listed-nodes';
import { createFleetRegistry, type NodeStore } from '../../../../lib/services/registry/registry';
import { collectGarbageEvery } from '../../../helpers/force-gc';
import { type HungServer, startHungServer } from '../../../helpers/hung-server';
import { outcomeWithin } from '../../../helpers/outcome-within';

/** A node that accepts the connection and never answers (issue 19 item 1). */
let hung: HungServer;
let hungUrl: string;
let healthy: SimNode;
let stopGc: () => void;

beforeAll(async () => {
  hung = await startHungServer();
  hungUrl = hung.url;
  healthy = await startSimNode({ models: CATALOG.filter((entry) => entry.name === 'qwen3:8b') });
});

afterAll(async () => {
  await hung.close();
  await healthy.close();
});

beforeEach(() => {
  stopGc = collectGarbageEvery(5);
});

afterEach(() => {
  stopGc();
});

function memoryStore(): NodeStore {
  const records = new Map<string, NodeRecord>();
  return {
    put: async (record) => {
      records.set(record.id, record);
    },
    get: async (id) => records.get(id),
    list: async () => [...records.values()],
  };
}

describe('deadlines on node calls, with the collector running all the time', () => {
  it('rejects a JSON call to a node that never answers once its deadline passes', async () => {
    expect(await outcomeWithin(callNodeJson(hungUrl, '/api/tags', { timeoutMs: 200 }))).toBe('rejected');
  });

  it('describes no model of a node that never answers, within its budget', async () => {
    const describe = createModelDescriber({ budgetMs: 200 });

    expect(await outcomeWithin(describe(hungUrl, ['qwen3:8b']))).toBe('resolved');
  });

  it('ends a poll pass although one listed node never answers, and keeps the others online', async () => {
    const registry = createFleetRegistry({ store: memoryStore(), config: loadConfig({}), log: () => {} });
    const polls = createListedNodePolls({
      registry,
      describe: createModelDescriber({ budgetMs: 200 }),
      // Time enough for the healthy node on a busy machine; the hung one is cut off by it all the same.
      timeoutMs: 2000,
    });
    const nodes = [
      { id: 'hung', url: hungUrl },
      { id: 'healthy', url: healthy.url },
    ];

    // Waiting for its polls for minutes, the pass must still end when the hung node's deadline passes.
    const pass = await polls.pass(nodes, 600_000);
    const snapshot = await registry.refresh();

    expect(pass).toEqual({ started: ['hung', 'healthy'], skipped: [], unfinished: [] });
    const healthyRecord = snapshot.byId.get('healthy');
    expect(healthyRecord).toBeDefined();
    expect(healthyRecord?.lastError).toBeUndefined();
    expect(snapshot.byId.get('healthy')?.status).toBe('online');
    expect(snapshot.byId.get('hung')?.lastSeenAt).toBe(0);
    expect(snapshot.byId.get('hung')?.lastError).toBeDefined();
  });

  it('skips a node whose poll is still under way and keeps polling the others on their schedule', async () => {
    const registry = createFleetRegistry({ store: memoryStore(), config: loadConfig({}), log: () => {} });
    // A poll deadline of a minute: the hung node's first poll outlives every pass below.
    const nodes = [
      { id: 'hung', url: hungUrl },
      { id: 'healthy', url: healthy.url },
    ];
    const saved: string[] = [];
    const polls = createListedNodePolls({
      registry: { ...registry, save: async (record) => void saved.push(record.id) },
      describe: createModelDescriber(),
      timeoutMs: 60_000,
    });
    const healthySaves = async (count: number) => {
      while (saved.filter((id) => id === 'healthy').length < count)
        await new Promise((resolve) => setTimeout(resolve, 20));
    };

    const first = await polls.pass(nodes, 100);
    await healthySaves(1);
    const second = await polls.pass(nodes, 100);
    await healthySaves(2);
    const third = await polls.pass(nodes, 100);
    await healthySaves(3);

    expect([first.started, first.skipped]).toEqual([['hung', 'healthy'], []]);
    expect(first.unfinished).toContain('hung');
    expect([second.started, second.skipped]).toEqual([['healthy'], ['hung']]);
    expect([third.started, third.skipped]).toEqual([['healthy'], ['hung']]);
    expect(saved).toEqual(['healthy', 'healthy', 'healthy']);
    hung.cutConnections();
    await polls.idle();
  });
});
