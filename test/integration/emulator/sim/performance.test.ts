import { afterEach, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimNode, type SimNodeOptions, startSimAgent, startSimNode } from '../../../../emulator/sim';
import { parseLines, postJson, readLines } from './helpers';

// These tests run the node with time compressed (timeScale), so a request takes milliseconds; they
// assert on counts, lengths and order, never on how long something took.

interface Final {
  done: boolean;
  done_reason: string;
  message?: { content: string };
  response?: string;
  load_duration: number;
  prompt_eval_count: number;
  prompt_eval_duration: number;
  eval_count: number;
  eval_duration: number;
  total_duration: number;
}

const models = CATALOG.filter((m) => ['llama3.2:3b', 'qwen3:8b', 'nomic-embed-text:latest'].includes(m.name));
const nodes: SimNode[] = [];

async function perfNode(options: SimNodeOptions = {}): Promise<SimNode> {
  const node = await startSimNode({
    models,
    loaded: ['qwen3:8b'],
    numParallel: 2,
    ...options,
    performance: { hardware: 'rtx-4090', timeScale: 200, seed: 1, ...options.performance },
  });
  nodes.push(node);
  return node;
}

async function chat(node: SimNode, body: Record<string, unknown>): Promise<Final> {
  const response = await postJson(`${node.url}/api/chat`, { model: 'qwen3:8b', stream: false, think: false, ...body });
  expect(response.status).toBe(200);
  return (await response.json()) as Final;
}

afterEach(async () => {
  await Promise.all(nodes.splice(0).map((node) => node.close()));
});

describe('simulated node with a performance model', () => {
  it('has no counters and no model without the option', async () => {
    const node = await startSimNode({ models });
    nodes.push(node);
    expect(node.performanceStats()).toBeUndefined();
    expect(node.performanceModel()).toBeUndefined();
  });

  it('streams one token a line, exactly as many as the prompt asks for', async () => {
    const node = await perfNode();
    const response = await postJson(`${node.url}/api/chat`, {
      model: 'qwen3:8b',
      think: false,
      messages: [{ role: 'user', content: 'Tell me about routers, answer in 40 words' }],
    });
    const lines = parseLines<Final>((await readLines(response)).lines);
    const final = lines.at(-1);
    expect(lines).toHaveLength(41);
    expect(final).toMatchObject({ done: true, done_reason: 'stop', eval_count: 40 });
    expect(lines.slice(0, -1).every((line) => !line.done && (line.message?.content ?? '') !== '')).toBe(true);
  });

  it('cuts the answer at num_predict', async () => {
    const node = await perfNode();
    const final = await chat(node, {
      messages: [{ role: 'user', content: 'answer in 400 words' }],
      options: { num_predict: 10 },
    });
    expect(final).toMatchObject({ done_reason: 'length', eval_count: 10 });
  });

  it("evaluates only the new part of a conversation's next turn", async () => {
    const node = await perfNode();
    const system = { role: 'system', content: 'You answer questions about fleets of GPU nodes. '.repeat(30) };
    const user1 = { role: 'user', content: 'What does a router do?' };
    const first = await chat(node, { messages: [system, user1] });
    const assistant = { role: 'assistant', content: first.message?.content ?? '' };
    const user2 = { role: 'user', content: 'And a node agent?' };
    const second = await chat(node, { messages: [system, user1, assistant, user2] });
    const turn1 = [system.content, user1.content].join('\n');
    const turn2 = [system.content, user1.content, assistant.content, user2.content].join('\n');
    expect(first.prompt_eval_count).toBe(Math.ceil(turn1.length / 4));
    const cached = Math.floor(`${turn1}\n${assistant.content}`.length / 4);
    expect(second.prompt_eval_count).toBe(Math.ceil(turn2.length / 4) - cached);
    expect(node.performanceStats()).toMatchObject({ cachedTokens: cached, finished: 2, waited: 0, waitMs: 0 });
  });

  it('makes requests beyond the slots wait, and counts them', async () => {
    const node = await perfNode({ numParallel: 1, performance: { hardware: 'rtx-4090', timeScale: 20 } });
    const ask = (i: number) =>
      chat(node, { messages: [{ role: 'user', content: `Question ${i}, answer in 1500 words` }] });
    const finals = await Promise.all([ask(1), ask(2), ask(3)]);
    expect(finals.map((f) => f.eval_count)).toEqual([1500, 1500, 1500]);
    const stats = node.performanceStats();
    expect(stats).toMatchObject({ requests: 3, finished: 3, outputTokens: 4500 });
    expect(stats?.waited).toBeGreaterThanOrEqual(1);
    expect(stats?.maxWaiting).toBeGreaterThanOrEqual(1);
  });

  it('loads a cold model once for concurrent requests and reports how long each waited for it', async () => {
    const node = await perfNode({ loaded: [] });
    const finals = await Promise.all(
      [1, 2].map((i) => chat(node, { messages: [{ role: 'user', content: `hi ${i}` }] })),
    );
    expect(finals.every((f) => f.load_duration > 0)).toBe(true);
    expect(node.performanceStats()).toMatchObject({ coldLoads: 1, coldLoadsByModel: { 'qwen3:8b': 1 } });
  });

  it('evicts an idle model for lack of memory, as /api/ps and the snapshot show', async () => {
    const node = await perfNode({ performance: { hardware: 'rtx-4090', timeScale: 200, memoryGb: 7 } });
    await chat(node, { model: 'llama3.2:3b', messages: [{ role: 'user', content: 'hello' }] });
    const ps = (await (await fetch(`${node.url}/api/ps`)).json()) as { models: { name: string; size: number }[] };
    expect(ps.models.map((m) => m.name)).toEqual(['llama3.2:3b']);
    expect(node.snapshot().loaded.map((m) => m.name)).toEqual(['llama3.2:3b']);
    expect(node.performanceStats()).toMatchObject({ evictions: 1, coldLoads: 1 });
  });

  it('sizes a loaded model as weights plus KV cache for every slot', async () => {
    const node = await perfNode({ numParallel: 4 });
    const entry = models.find((m) => m.name === 'qwen3:8b');
    const size = node.snapshot().loaded.find((m) => m.name === 'qwen3:8b')?.size;
    expect(size).toBe((entry?.size ?? 0) + 4096 * 4 * 2 * 2 * 8 * 128 * (entry?.blockCount ?? 0));
  });

  it('frees the slot of a client that leaves mid-stream', async () => {
    const node = await perfNode({ performance: { hardware: 'rtx-4090', timeScale: 1 } });
    const controller = new AbortController();
    const response = await postJson(
      `${node.url}/api/chat`,
      { model: 'qwen3:8b', messages: [{ role: 'user', content: 'answer in 5000 words' }] },
      { signal: controller.signal },
    );
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    await node.whenIdle();
    expect(node.performanceStats()).toMatchObject({ requests: 1, finished: 0 });
  });

  it('uses the prompt cache on /api/generate too', async () => {
    const node = await perfNode();
    const system = 'Summarise the following text carefully. '.repeat(20);
    const generate = async (prompt: string) =>
      (await (
        await postJson(`${node.url}/api/generate`, { model: 'qwen3:8b', system, prompt, stream: false, think: false })
      ).json()) as Final;
    const first = await generate('First text.');
    const second = await generate('Second text.');
    expect(second.prompt_eval_count).toBeLessThan(first.prompt_eval_count);
  });
});

describe('node agent of a node with a performance model', () => {
  it("reports its hardware class's chip, bandwidth and memory, with room for models as available", async () => {
    const agent = await startSimAgent({
      ollamaOptions: { models, loaded: ['qwen3:8b'], performance: { hardware: 'rtx-3090', timeScale: 100 } },
    });
    try {
      const payload = agent.payload();
      expect(payload).toMatchObject({ chip: 'NVIDIA GeForce RTX 3090', memory_bandwidth_gbps: 936 });
      const loadedGb = (agent.node.snapshot().loaded[0]?.size ?? 0) / 1024 ** 3;
      expect(payload.memory.total_gb).toBe(24);
      expect(payload.memory.available_gb).toBeCloseTo(24 - loadedGb, 1);
    } finally {
      await agent.stop();
    }
  });

  it('keeps what the agent is told explicitly', async () => {
    const agent = await startSimAgent({
      chip: 'Custom chip',
      totalGb: 40,
      ollamaOptions: { models, performance: { hardware: 'rtx-3090' } },
    });
    try {
      expect(agent.payload()).toMatchObject({
        chip: 'Custom chip',
        memory: { total_gb: 40 },
        memory_bandwidth_gbps: 936,
      });
    } finally {
      await agent.stop();
    }
  });
});
