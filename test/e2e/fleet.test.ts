/**
 * The foundation end to end, as a user meets it: the built emulator in its own process, a listed plain
 * Ollama node it polls, and a node agent with all three sidecars posting heartbeats; checked through
 * the official `ollama` and `openai` clients and raw fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import {
  CATALOG,
  DEFAULT_IMAGE_MODELS,
  DEFAULT_TEXT_EMBEDDING_MODELS,
  DEFAULT_TRANSCRIPTION_MODELS,
  type SimAgent,
  type SimNode,
  startSimAgent,
  startSimNode,
} from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

let plain: SimNode;
let router: RouterProcess;
let agent: SimAgent;
let ollama: Ollama;
let openai: OpenAI;

/** A field the router adds to an SDK type that does not declare it (`details.fleet_nodes`, `fleet_node`). */
const extra = (value: object | undefined, key: string): unknown =>
  value === undefined ? undefined : Reflect.get(value, key);

const catalog = (names: readonly string[]) => CATALOG.filter((entry) => names.includes(entry.name));

interface FleetStatusBody {
  fleet: Record<string, number>;
  nodes: {
    node_id: string;
    status: string;
    source: string;
    last_error?: string | null;
    memory: { total_gb: number } | null;
    ollama: { models_loaded: { name: string }[]; models_available: string[]; num_parallel: number };
    image?: { models_available: { name: string }[]; url: string } | null;
    transcription?: { models_available: { name: string }[] } | null;
    text_embedding?: { models_available: { name: string; kind: string }[] } | null;
  }[];
  queues: Record<string, { node_id: string; model: string; pending: number; in_flight: number; concurrency: number }>;
}

async function fleetStatus(): Promise<FleetStatusBody> {
  const response = await fetch(`${router.url}/fleet/status`);
  expect(response.status).toBe(200);
  return (await response.json()) as FleetStatusBody;
}

beforeAll(async () => {
  plain = await startSimNode({
    id: 'plain',
    models: catalog(['llama3.2:3b', 'qwen3:8b', 'nomic-embed-text:latest']),
    loaded: ['llama3.2:3b'],
  });
  router = await startRouter({ FLEET_NODES: `plain=${plain.url}` });
  agent = await startSimAgent({
    nodeId: 'studio',
    routerUrl: router.url,
    intervalMs: 60_000,
    totalGb: 192,
    ollamaOptions: {
      id: 'studio',
      models: catalog(['qwen2.5:32b', 'gemma3:12b', 'llama3.2:3b']),
      loaded: ['gemma3:12b'],
      numParallel: 4,
    },
    image: DEFAULT_IMAGE_MODELS,
    transcription: DEFAULT_TRANSCRIPTION_MODELS,
    textEmbedding: DEFAULT_TEXT_EMBEDDING_MODELS,
  });
  await agent.sendHeartbeat();
  ollama = new Ollama({ host: router.url });
  openai = new OpenAI({ baseURL: `${router.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  // Wait until the plain node's first poll and the agent's heartbeat both show.
  await eventually(async () => {
    const { models } = await ollama.list();
    expect(models.map((model) => model.name)).toEqual(expect.arrayContaining(['qwen3:8b', 'qwen2.5:32b']));
  });
}, 30_000);

afterAll(async () => {
  await agent?.stop();
  await router?.stop();
  await plain?.close();
});

describe('the router with a polled node and a node agent', () => {
  it('answers the Ollama liveness probe on GET and HEAD', async () => {
    const get = await fetch(`${router.url}/`);
    const head = await fetch(`${router.url}/`, { method: 'HEAD' });

    expect(await get.text()).toBe('Ollama is running');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('reports a plain dotted version', async () => {
    const { version } = await ollama.version();

    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('lists every model on every node through the ollama client, with the nodes holding each', async () => {
    const { models } = await ollama.list();
    const byName = new Map(models.map((model) => [model.name, model]));
    const shared = byName.get('llama3.2:3b');

    expect(extra(shared?.details, 'fleet_nodes')).toEqual(['plain', 'studio']);
    expect(shared?.model).toBe('llama3.2:3b');
    expect(shared?.size).toBeGreaterThan(1e9);
    expect(shared?.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(shared?.details.quantization_level).toBe('Q4_K_M');
    expect(extra(byName.get('qwen3:8b')?.details, 'fleet_nodes')).toEqual(['plain']);
    const image = byName.get('z-image-turbo');
    expect(image?.size).toBe(0);
    expect(extra(image?.details, 'type')).toBe('image');
  });

  it('lists one entry per node and loaded model through the ollama client', async () => {
    const { models } = await ollama.ps();
    const entries = models.map((model) => `${extra(model, 'fleet_node')}/${model.name}`).sort();

    expect(entries).toEqual(['plain/llama3.2:3b', 'studio/gemma3:12b']);
    for (const model of models) {
      expect(typeof model.expires_at).toBe('string');
      expect(model.size).toBeGreaterThan(0);
    }
  });

  it("gives a node agent's loaded model an RFC 3339 expires_at, 5 minutes after its last heartbeat", async () => {
    const before = Date.now();
    await agent.sendHeartbeat();
    const after = Date.now();

    const { models } = await eventually(async () => {
      const ps = await ollama.ps();
      const expiry = Date.parse(String(ps.models.find((model) => extra(model, 'fleet_node') === 'studio')?.expires_at));
      expect(expiry).toBeGreaterThanOrEqual(before + 5 * 60_000);
      return ps;
    });
    const fromAgent = models.find((model) => extra(model, 'fleet_node') === 'studio');

    expect(fromAgent?.name).toBe('gemma3:12b');
    expect(String(fromAgent?.expires_at)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
    expect(Date.parse(String(fromAgent?.expires_at))).toBeLessThanOrEqual(after + 5 * 60_000);
  });

  it('sends no empty digest, format, family or parameter_size in /api/ps and /api/tags, agent models described', async () => {
    const [{ models: hot }, { models: listed }] = await Promise.all([ollama.ps(), ollama.list()]);
    const empties = [...hot, ...listed].flatMap((model) => {
      const fields: Record<string, unknown> = { digest: model.digest, ...model.details };
      return ['digest', 'format', 'family', 'parameter_size']
        .filter((key) => fields[key] === '')
        .map((key) => `${model.name}.${key}`);
    });

    expect(empties).toEqual([]);
    const agentOnly = listed.find((model) => model.name === 'gemma3:12b');
    expect(agentOnly?.details).toMatchObject({ format: 'gguf', family: 'gemma3', parameter_size: '12.2B' });
    expect(hot.find((model) => model.name === 'gemma3:12b')?.details).toMatchObject({ format: 'gguf' });
  });

  it('lists chat, embedding and image models through the openai client', async () => {
    const ids: string[] = [];
    const owners = new Map<string, string>();
    for await (const model of openai.models.list()) {
      ids.push(model.id);
      owners.set(model.id, model.owned_by);
      expect(model.object).toBe('model');
      expect(Number.isInteger(model.created)).toBe(true);
    }

    expect(ids).toEqual(
      expect.arrayContaining([
        'llama3.2:3b',
        'qwen2.5:32b',
        'nomic-embed-text:latest',
        'bge-small-en-v1.5',
        'z-image-turbo',
      ]),
    );
    expect(ids).not.toContain('ms-marco-minilm-l-6-v2');
    expect(ids).not.toContain('qwen3-asr');
    expect(owners.get('llama3.2:3b')).toBe('ollama');
    expect(owners.get('z-image-turbo')).toBe('mflux');
  });

  it('shows each node, its hardware, models, sidecars and queues in /fleet/status', async () => {
    const status = await fleetStatus();
    const studio = status.nodes.find((node) => node.node_id === 'studio');
    const polled = status.nodes.find((node) => node.node_id === 'plain');

    expect(status.fleet['nodes_total']).toBe(2);
    expect(status.fleet['nodes_online']).toBe(2);
    expect(studio?.status).toBe('online');
    expect(studio?.source).toBe('agent');
    expect(studio?.memory?.total_gb).toBe(192);
    expect(studio?.ollama.num_parallel).toBe(4);
    expect(studio?.image?.models_available.map((model) => model.name)).toEqual(['z-image-turbo']);
    expect(studio?.transcription?.models_available.map((model) => model.name)).toEqual(['qwen3-asr']);
    expect(studio?.text_embedding?.models_available.find((model) => model.name === 'bge-reranker-base')?.kind).toBe(
      'rerank',
    );
    expect(polled?.source).toBe('listed');
    expect(polled?.memory).toBeNull();
    expect(polled?.ollama.models_available).toEqual(['llama3.2:3b', 'nomic-embed-text:latest', 'qwen3:8b']);
    expect(status.queues['studio:gemma3:12b']).toEqual({
      node_id: 'studio',
      model: 'gemma3:12b',
      pending: 0,
      in_flight: 0,
      concurrency: 4,
    });
  });

  it('gives queue depths in /fleet/queue', async () => {
    const response = await fetch(`${router.url}/fleet/queue`);
    const body = (await response.json()) as {
      queue_depth: number;
      nodes_online: number;
      queues: Record<string, unknown>;
    };

    expect(body.queue_depth).toBe(0);
    expect(body.nodes_online).toBe(2);
    expect(Object.keys(body.queues).sort()).toEqual(['plain:llama3.2:3b', 'studio:gemma3:12b']);
  });

  it('follows a node loading a model: the next heartbeat updates /api/ps', async () => {
    agent.node.load('qwen2.5:32b');
    await agent.sendHeartbeat();

    await eventually(async () => {
      const { models } = await ollama.ps();
      expect(models.map((model) => model.name)).toContain('qwen2.5:32b');
    });
  });

  it('follows a polled node: a model loaded there shows on the next poll', async () => {
    plain.load('qwen3:8b');

    await eventually(async () => {
      const entries = (await ollama.ps()).models.map((model) => `${extra(model, 'fleet_node')}/${model.name}`);
      expect(entries).toContain('plain/qwen3:8b');
    });
  });

  it("shows a model's metadata through the ollama client, from a node that has it, cached", async () => {
    const showsBefore = plain.requests.filter((request) => request.path === '/api/show').length;

    const first = await ollama.show({ model: 'qwen3:8b' });
    const second = await ollama.show({ model: 'qwen3:8b' });
    const showsAfter = plain.requests.filter((request) => request.path === '/api/show').length;

    expect(first.capabilities).toEqual(expect.arrayContaining(['completion', 'tools', 'thinking']));
    expect(Reflect.get(first.model_info, 'general.architecture')).toBe('qwen3');
    expect(Reflect.get(first.model_info, 'qwen3.context_length')).toBeGreaterThan(0);
    expect(second).toEqual(first);
    expect(showsAfter - showsBefore).toBe(1);
  });

  it('answers /api/show for a sidecar model, 404 for an unknown one and 400 without a model', async () => {
    const image = await ollama.show({ model: 'z-image-turbo' });
    const unknown = await fetch(`${router.url}/api/show`, {
      method: 'POST',
      body: JSON.stringify({ model: 'nope:1b' }),
    });
    const missing = await fetch(`${router.url}/api/show`, { method: 'POST', body: '{}' });

    expect(image.capabilities).toEqual(['image']);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "model 'nope:1b' not found" });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: 'model is required' });
  });

  it('rejects a malformed heartbeat with 400 naming the field', async () => {
    const response = await fetch(`${router.url}/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...agent.payload(), memory: { total_gb: 'lots' } }),
    });
    const body = (await response.json()) as { error: { message: string; param: string } };

    expect(response.status).toBe(400);
    expect(body.error.param).toMatch(/^memory\./);
    expect(body.error.message).toContain('memory.');
  });

  it('rejects a heartbeat that is not JSON with 400', async () => {
    const response = await fetch(`${router.url}/fleet/heartbeat`, { method: 'POST', body: '{"node_id":' });

    expect(response.status).toBe(400);
  });

  it('answers unknown routes with 404 in the family shape', async () => {
    const ollamaStyle = await fetch(`${router.url}/api/nope`);
    const messagesStyle = await fetch(`${router.url}/v1/messages/nope`, { method: 'POST' });

    expect(ollamaStyle.status).toBe(404);
    expect(await ollamaStyle.json()).toEqual({ error: 'no route for GET /api/nope' });
    expect(((await messagesStyle.json()) as { type: string }).type).toBe('error');
  });

  it('records a failing poll on the node without dropping it', async () => {
    await plain.faults.refuseConnections(true);

    const polled = await eventually(async () => {
      const node = (await fleetStatus()).nodes.find((entry) => entry.node_id === 'plain');
      expect(node?.last_error).toEqual(expect.stringContaining('ECONNREFUSED'));
      return node;
    });
    await plain.faults.refuseConnections(false);

    // Still online: a node turns degraded only after 15 s without a good poll.
    expect(polled?.status).toBe('online');
    await eventually(async () => {
      const node = (await fleetStatus()).nodes.find((entry) => entry.node_id === 'plain');
      expect(node).toBeDefined();
      expect(node?.last_error ?? null).toBeNull();
    });
  });

  it('takes a draining node out at once: it goes offline and its models leave /api/tags', async () => {
    const reply = await agent.drain();

    expect(reply).toEqual({ status: 'draining', node_id: 'studio', node_status: 'offline' });
    await eventually(async () => {
      const studio = (await fleetStatus()).nodes.find((node) => node.node_id === 'studio');
      expect(studio?.status).toBe('offline');
      const { models } = await ollama.list();
      expect(models.map((model) => model.name)).not.toContain('qwen2.5:32b');
    });
  });

  it('brings a drained node back with its next heartbeat', async () => {
    agent.resume();
    await agent.sendHeartbeat();

    await eventually(async () => {
      const studio = (await fleetStatus()).nodes.find((node) => node.node_id === 'studio');
      expect(studio?.status).toBe('online');
    });
  });
});
