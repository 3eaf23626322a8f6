import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type SimFleet, startSimFleet } from '../../../../emulator/sim';
import { type FakeRouter, fetchErrorCode, postJson, readLines, startFakeRouter, waitFor } from './helpers';

describe('simulated fleet', () => {
  let router: FakeRouter;
  let fleet: SimFleet;

  beforeAll(async () => {
    router = await startFakeRouter();
    fleet = await startSimFleet({
      routerUrl: router.url,
      heartbeatIntervalMs: 50,
      ttftMs: 0,
      tokensPerSecond: Number.POSITIVE_INFINITY,
    });
  });

  afterAll(async () => {
    await fleet.stop();
    await router.close();
  });

  it('starts two agents and one plain node to list in FLEET_NODES', () => {
    expect(fleet.nodes.map((node) => node.id)).toEqual(['gpu-large', 'gpu-small', 'ollama-plain']);
    expect(fleet.agents.map((agent) => agent.nodeId)).toEqual(['gpu-large', 'gpu-small']);
    expect(fleet.listedNodes).toBe(`ollama-plain=${fleet.node('ollama-plain').url}`);
    expect(fleet.listedNodes).toMatch(/^ollama-plain=http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('heartbeats for both agents reach the router', async () => {
    await waitFor(() => {
      const ids = new Set(router.posts.map((post) => post.body.node_id));
      return ids.has('gpu-large') && ids.has('gpu-small');
    });
    const large = router.posts.find((post) => post.body.node_id === 'gpu-large')?.body;
    expect(large?.['ollama_host']).toBe(fleet.node('gpu-large').url);
  });

  it('covers chat, thinking, tools, vision, embedding and image models, plus every sidecar', async () => {
    const capabilities = new Set<string>();
    for (const node of fleet.nodes) {
      const tags = (await (await fetch(`${node.url}/api/tags`)).json()) as { models: { capabilities: string[] }[] };
      for (const model of tags.models) for (const capability of model.capabilities) capabilities.add(capability);
    }
    expect([...capabilities].sort()).toEqual(
      expect.arrayContaining(['completion', 'embedding', 'image', 'thinking', 'tools', 'vision']),
    );
    const [large, small] = fleet.agents;
    expect(large?.image?.models.map((m) => m.name)).toEqual(['z-image-turbo']);
    expect(large?.textEmbedding?.models.some((m) => m.kind === 'rerank')).toBe(true);
    expect(large?.textEmbedding?.models.some((m) => m.kind === 'embed')).toBe(true);
    expect(small?.transcription?.models.map((m) => m.name)).toEqual(['qwen3-asr']);
  });

  it('streams without delays when tokensPerSecond is Infinity', async () => {
    const started = performance.now();
    const res = await postJson(`${fleet.node('gpu-small').url}/api/chat`, {
      model: 'llama3.2:3b',
      messages: [{ role: 'user', content: 'bench, in 200 words' }],
    });
    const { lines } = await readLines(res);
    expect(lines).toHaveLength(201);
    // At the default 40 tokens/s this would take five seconds.
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('closes every server on stop', async () => {
    const other = await startSimFleet();
    const urls = [
      ...other.nodes.map((node) => node.url),
      ...other.agents.flatMap((a) => [a.image?.url, a.transcription?.url]),
    ];
    await other.stop();
    for (const url of urls.filter((u): u is string => u !== undefined)) {
      expect(await fetchErrorCode(`${url}/`)).toBe('ECONNREFUSED');
    }
  });
});
