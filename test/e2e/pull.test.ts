/**
 * Model pulls end to end, as a user meets them: the built emulator in its own process, node agents
 * posting heartbeats (rarely, so only the router's own bookkeeping can make a pulled model show at
 * once), the official `ollama` client pulling with progress, and raw HTTP for the exact status codes.
 * A second router with a polled node covers the node whose memory is unknown.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ollama, type ProgressResponse } from 'ollama';
import {
  CATALOG,
  DEFAULT_TEXT_EMBEDDING_MODELS,
  type SimAgent,
  type SimNode,
  startSimAgent,
  startSimNode,
} from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

let router: RouterProcess;
let big: SimAgent;
let small: SimAgent;
let leaving: SimAgent;
let ollama: Ollama;

const catalog = (names: readonly string[]) => CATALOG.filter((entry) => names.includes(entry.name));

/** A field the router adds to an SDK type that does not declare it (`details.fleet_nodes`). */
const fleetNodes = (details: object | undefined): unknown =>
  details === undefined ? undefined : Reflect.get(details, 'fleet_nodes');

function postPull(body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${router.url}/api/pull`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal !== undefined ? { signal } : {}),
  });
}

async function errorOf(response: Response): Promise<unknown> {
  return ((await response.json()) as { error: unknown }).error;
}

beforeAll(async () => {
  router = await startRouter();
  const agent = (nodeId: string, totalGb: number, models: readonly string[], pullStepMs: number) =>
    startSimAgent({
      nodeId,
      routerUrl: router.url,
      intervalMs: 600_000,
      totalGb,
      ollamaOptions: { id: nodeId, models: catalog(models), pullStepMs },
      ...(nodeId === 'small' ? { textEmbedding: DEFAULT_TEXT_EMBEDDING_MODELS } : {}),
    });
  [big, small, leaving] = await Promise.all([
    agent('big', 192, ['llama3.2:3b'], 40),
    agent('small', 24, ['qwen3:8b'], 2),
    agent('leaving', 64, [], 2),
  ]);
  await Promise.all([big.sendHeartbeat(), small.sendHeartbeat(), leaving.sendHeartbeat()]);
  await leaving.drain();
  ollama = new Ollama({ host: router.url });
  await eventually(async () => {
    const { models } = await ollama.list();
    expect(models.map((model) => model.name)).toEqual(expect.arrayContaining(['llama3.2:3b', 'qwen3:8b']));
  });
}, 30_000);

afterAll(async () => {
  await Promise.all([big?.stop(), small?.stop(), leaving?.stop()]);
  await router?.stop();
});

describe('pulling a model through the router', () => {
  it('streams the progress through the ollama client and lists the model on the roomiest node at once', async () => {
    const progress: ProgressResponse[] = [];

    for await (const part of await ollama.pull({ model: 'tinyllama:1.1b', stream: true })) progress.push(part);
    const { models } = await ollama.list();

    expect(progress[0]?.status).toBe('pulling manifest');
    const layers = progress.filter((part) => part.digest !== undefined);
    expect(layers.length).toBeGreaterThan(0);
    for (const layer of layers) {
      expect(layer.status).toBe(`pulling ${layer.digest.slice('sha256:'.length, 'sha256:'.length + 12)}`);
      expect(layer.total).toBeGreaterThan(0);
    }
    expect(layers.some((layer) => layer.completed === layer.total)).toBe(true);
    expect(progress.at(-1)?.status).toBe('success');
    expect(fleetNodes(models.find((model) => model.name === 'tinyllama:1.1b')?.details)).toEqual(['big']);
  });

  it('answers stream: false through the ollama client with success', async () => {
    const reply = await ollama.pull({ model: 'smollm2:135m', stream: false });

    expect(reply).toEqual({ status: 'success' });
  });

  it('streams NDJSON with X-Fleet-Node to the node named by node_id, taking model as an alias of name', async () => {
    const response = await postPull({ model: 'qwen2.5:0.5b', node_id: 'small' });
    const lines = (await response.text()).trimEnd().split('\n');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    expect(response.headers.get('x-fleet-node')).toBe('small');
    expect(JSON.parse(lines.at(-1) ?? '')).toEqual({ status: 'success' });
    expect(small.node.snapshot().models.map((model) => model.name)).toContain('qwen2.5:0.5b');
  });

  it('updates the model on the node that already has it', async () => {
    const response = await postPull({ name: 'qwen3:8b', stream: false });

    expect(response.status).toBe(200);
    expect(response.headers.get('x-fleet-node')).toBe('small');
  });

  it("answers a missing name with 400 model name required (use 'name' or 'model' field)", async () => {
    const response = await postPull({ stream: false });

    expect(response.status).toBe(400);
    expect(await errorOf(response)).toBe("model name required (use 'name' or 'model' field)");
  });

  it('answers an image model with 400 and how to install it', async () => {
    const response = await postPull({ name: 'flux-dev' });

    expect(response.status).toBe(400);
    expect(await errorOf(response)).toContain('uv tool install mflux');
  });

  it("answers a model only a node agent's sidecar serves with 400", async () => {
    const response = await postPull({ name: 'ms-marco-minilm-l-6-v2' });

    expect(response.status).toBe(400);
    expect(await errorOf(response)).toContain('text-embedding sidecar');
  });

  it('answers an unknown node with 404', async () => {
    const response = await postPull({ name: 'tinyllama:1.1b', node_id: 'nowhere' });

    expect(response.status).toBe(404);
    expect(await errorOf(response)).toBe("node 'nowhere' not found");
  });

  it('answers a draining node with 503', async () => {
    const response = await postPull({ name: 'tinyllama:1.1b', node_id: 'leaving' });

    expect(response.status).toBe(503);
    expect(await errorOf(response)).toBe("node 'leaving' is draining");
  });

  it('answers 503 with Retry-After when no node has the memory for the model', async () => {
    const response = await postPull({ name: 'llama3.1:405b' });

    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).not.toBeNull();
    expect(await errorOf(response)).toBe(
      "no node has enough available memory to pull 'llama3.1:405b' (needs about 273.9 GB)",
    );
  });

  it('answers 409 while the same model is being pulled, and pulls it again once that pull ended', async () => {
    const first = await postPull({ name: 'slowpoke:7b' });
    const reader = first.body?.getReader();
    await reader?.read();

    const raw = await postPull({ name: 'slowpoke:7b', node_id: 'small' });
    const viaClient = ollama.pull({ model: 'SLOWPOKE:7b', stream: false });
    await expect(viaClient).rejects.toMatchObject({ status_code: 409 });
    for (let chunk = await reader?.read(); chunk !== undefined && !chunk.done; chunk = await reader?.read()) {
      // Read the first pull to its end.
    }
    const again = await postPull({ name: 'slowpoke:7b', stream: false });

    expect(raw.status).toBe(409);
    expect(await errorOf(raw)).toBe("model 'slowpoke:7b' is already being pulled");
    expect(again.status).toBe(200);
  });

  it("makes the ollama client throw the node's error line", async () => {
    const consume = async () => {
      for await (const _part of await ollama.pull({ model: 'missing/nothing', stream: true })) {
        // Progress until the node's error.
      }
    };

    await expect(consume()).rejects.toThrow('pull model manifest: file does not exist');
  });

  it('makes the ollama client throw when the node drops the stream, instead of ending quietly', async () => {
    big.node.faults.dropMidStream(3);
    const consume = async () => {
      for await (const _part of await ollama.pull({ model: 'dropme:1b', stream: true })) {
        // Progress until the node drops.
      }
    };

    await expect(consume()).rejects.toThrow(/the pull on node 'big' broke off/);
  });

  it('stops the pull on the node when the client leaves, and frees the lock', async () => {
    const controller = new AbortController();
    const first = await postPull({ name: 'abandoned:3b' }, controller.signal);
    await first.body?.getReader().read();

    controller.abort();
    const again = await eventually(async () => {
      const response = await postPull({ name: 'abandoned:3b', node_id: 'small', stream: false });
      expect(response.status).toBe(200);
      return response;
    });

    // Left alone, the node would have finished this pull (about 15 lines, 40 ms apart) by now.
    await new Promise((resolve) => setTimeout(resolve, 1000));

    expect(first.headers.get('x-fleet-node')).toBe('big');
    expect(again.headers.get('x-fleet-node')).toBe('small');
    expect(big.node.snapshot().models.map((model) => model.name)).not.toContain('abandoned:3b');
  });
});

describe('pulling onto a polled node', () => {
  let plain: SimNode;
  let polled: RouterProcess;

  beforeAll(async () => {
    plain = await startSimNode({ id: 'plain', models: catalog(['llama3.2:3b']), pullStepMs: 2 });
    polled = await startRouter({ FLEET_NODES: `plain=${plain.url}`, FLEET_POLL_INTERVAL_MS: '60000' });
    await eventually(async () => {
      const response = await fetch(`${polled.url}/api/tags`);
      expect(JSON.stringify(await response.json())).toContain('llama3.2:3b');
    });
  }, 30_000);

  afterAll(async () => {
    await polled?.stop();
    await plain?.close();
  });

  it('pulls onto the polled node, whose memory is unknown, when no other node can take it, and lists it at once', async () => {
    const client = new Ollama({ host: polled.url });

    const reply = await client.pull({ model: 'qwen2.5:7b', stream: false });
    const { models } = await client.list();

    expect(reply).toEqual({ status: 'success' });
    expect(fleetNodes(models.find((model) => model.name === 'qwen2.5:7b')?.details)).toEqual(['plain']);
  });
});
