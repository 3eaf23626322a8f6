import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimNode, startSimNode } from '../../../../emulator/sim';
import { createModelDescriber } from '../../../../lib/services/node-client/describe-models';

let node: SimNode;

beforeAll(async () => {
  node = await startSimNode({ models: CATALOG.filter((entry) => ['gemma3:12b', 'qwen3:8b'].includes(entry.name)) });
});

afterAll(async () => {
  await node.close();
});

const showCalls = () => node.requests.filter((request) => request.path === '/api/show').length;

describe('createModelDescriber', () => {
  it("reads capabilities and context length from the node's /api/show", async () => {
    const describe = createModelDescriber();

    const shows = await describe(node.url, ['gemma3:12b', 'qwen3:8b']);

    expect(shows.get('gemma3:12b')?.capabilities).toContain('vision');
    expect(shows.get('qwen3:8b')?.capabilities).toEqual(expect.arrayContaining(['tools', 'thinking']));
    expect(shows.get('qwen3:8b')?.contextLength).toBeGreaterThan(0);
  });

  it('leaves a model it could not describe alone for a while', async () => {
    let now = 0;
    const describe = createModelDescriber({ now: () => now, retryAfterMs: 60_000 });
    const before = showCalls();

    const first = await describe(node.url, ['not-there:latest']);
    const second = await describe(node.url, ['not-there:latest']);
    now = 61_000;
    await describe(node.url, ['not-there:latest']);

    expect(first.size).toBe(0);
    expect(second.size).toBe(0);
    expect(showCalls() - before).toBe(2);
  });

  it('gives up within its time budget when the node does not answer', async () => {
    node.faults.hang(true);
    const describe = createModelDescriber({ budgetMs: 300 });
    const started = Date.now();

    const shows = await describe(node.url, ['gemma3:12b', 'qwen3:8b', 'llama3.2:3b', 'x:1', 'y:2', 'z:3']);
    node.faults.hang(false);

    expect(shows.size).toBe(0);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
