import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type SimAgent, startSimAgent } from '../../../../emulator/sim';
import { type FakeRouter, startFakeRouter, waitFor } from './helpers';

describe('simulated node agent', () => {
  let router: FakeRouter;
  let agent: SimAgent;

  beforeAll(async () => {
    router = await startFakeRouter();
    agent = await startSimAgent({
      nodeId: 'mac-studio',
      routerUrl: router.url,
      nodeKey: 'secret-key',
      intervalMs: 40,
      ollamaOptions: { loaded: ['qwen3:8b'], numParallel: 2 },
      totalGb: 64,
      chip: 'Apple M2 Ultra',
      memoryBandwidthGbps: 800,
      image: [{ name: 'z-image-turbo', binary: 'mflux-generate-z-image-turbo' }],
      transcription: [{ name: 'qwen3-asr' }],
      textEmbedding: [
        { name: 'ms-marco-minilm-l-6-v2', dimensions: 0, kind: 'rerank' },
        { name: 'bge-small-en-v1.5', dimensions: 384, kind: 'embed' },
      ],
    });
  });

  afterAll(async () => {
    await agent.stop();
    await router.close();
  });

  it('sends heartbeats to /heartbeat at once and then every interval, with the node key', async () => {
    await waitFor(() => agent.heartbeatsSent >= 3);
    expect(router.posts.length).toBeGreaterThanOrEqual(3);
    expect(router.posts.every((post) => post.path === '/heartbeat')).toBe(true);
    expect(router.posts[0]?.authorization).toBe('Bearer secret-key');
  });

  it('sends the full herd-node payload', async () => {
    await waitFor(() => router.posts.length >= 1);
    const body = router.posts[router.posts.length - 1]?.body;
    expect(body).toMatchObject({
      node_id: 'mac-studio',
      arch: 'apple_silicon',
      cpu: { cores_physical: 16 },
      memory: { total_gb: 64, pressure: 'normal' },
      thermal: { state: 'nominal' },
      ollama_host: agent.node.url,
      lan_ip: '127.0.0.1',
      agent_version: '0.10.0',
      chip: 'Apple M2 Ultra',
      memory_bandwidth_gbps: 800,
      image: {
        models_available: [{ name: 'z-image-turbo', binary: 'mflux-generate-z-image-turbo' }],
        generating: false,
      },
      image_port: agent.image?.port,
      transcription: { models_available: [{ name: 'qwen3-asr', binary: 'mlx-qwen3-asr' }], transcribing: false },
      transcription_port: agent.transcription?.port,
      text_embedding: {
        models_available: [
          { name: 'ms-marco-minilm-l-6-v2', dimensions: 0, kind: 'rerank' },
          { name: 'bge-small-en-v1.5', dimensions: 384, kind: 'embed' },
        ],
        processing: false,
      },
      text_embedding_port: agent.textEmbedding?.port,
    });
    const memory = body?.['memory'] as { used_gb: number; available_gb: number };
    expect(memory.used_gb + memory.available_gb).toBeCloseTo(64, 1);
    expect(typeof body?.['timestamp']).toBe('number');
    expect(body?.['disk']).toEqual({
      total_gb: expect.any(Number),
      used_gb: expect.any(Number),
      available_gb: expect.any(Number),
    });
  });

  it('reports the Ollama it fronts, read live', () => {
    agent.node.load('llama3.2:3b');
    const { ollama } = agent.payload();
    expect(ollama.models_available).toEqual(
      expect.arrayContaining(['llama3.2:3b', 'qwen3:8b', 'nomic-embed-text:latest']),
    );
    expect(ollama.models_loaded.map((m) => m.name).sort()).toEqual(['llama3.2:3b', 'qwen3:8b']);
    expect(ollama.models_loaded.find((m) => m.name === 'qwen3:8b')).toEqual({
      name: 'qwen3:8b',
      size_gb: 4.99,
      requests_active: 0,
      parameter_size: '8.2B',
      quantization: 'Q4_K_M',
      context_length: 4096,
    });
    expect(ollama.models_available_sizes['qwen3:8b']).toBe(4.87);
    expect(ollama.num_parallel).toBe(2);
    expect(ollama.max_loaded_models).toBe(3);
    expect(ollama.requests_active).toBe(0);
  });

  it('reports empty Ollama lists while its Ollama refuses connections', async () => {
    await agent.node.faults.refuseConnections(true);
    expect(agent.payload().ollama.models_available).toEqual([]);
    await agent.node.faults.refuseConnections(false);
    expect(agent.payload().ollama.models_available.length).toBeGreaterThan(0);
  });

  it('resolves sendHeartbeat with the router reply', async () => {
    expect(await agent.sendHeartbeat()).toEqual({ status: 'ok', node_status: 'online' });
  });

  it('counts failed heartbeats, reports them, and recovers without throwing', async () => {
    const failuresBefore = agent.heartbeatFailures;
    router.status = 500;
    await waitFor(() => agent.heartbeatFailures >= failuresBefore + 2);
    await expect(agent.sendHeartbeat()).rejects.toThrow('heartbeat answered 500');
    expect(agent.payload().connection_failures).toBeGreaterThanOrEqual(3);
    router.status = 200;
    const sentBefore = agent.heartbeatsSent;
    await waitFor(() => agent.heartbeatsSent > sentBefore);
    expect(agent.payload().connection_failures).toBe(0);
    expect(agent.payload().connection_failures_total).toBeGreaterThanOrEqual(3);
  });

  it('drains: posts node_id with draining true and stops heartbeating until resumed', async () => {
    const reply = await agent.drain();
    expect(reply).toEqual({ status: 'draining', node_id: 'mac-studio' });
    const drainPost = router.posts[router.posts.length - 1];
    expect(drainPost?.body).toEqual({ node_id: 'mac-studio', draining: true });
    const count = router.posts.length;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(router.posts.length).toBe(count);
    agent.resume();
    await waitFor(() => router.posts.length > count);
    expect(router.posts[router.posts.length - 1]?.body['draining']).toBe(false);
  });
});

describe('agent without a router', () => {
  it('builds payloads with null sidecars and closes the Ollama it started', async () => {
    const agent = await startSimAgent({ nodeId: 'lonely' });
    const payload = agent.payload();
    expect(payload).toMatchObject({ image: null, image_port: 0, transcription: null, text_embedding: null });
    await expect(agent.sendHeartbeat()).rejects.toThrow('no routerUrl');
    const url = agent.node.url;
    await agent.stop();
    await expect(fetch(url)).rejects.toThrow();
  });
});
