/**
 * Ollama's model-admin routes end to end (issue 20 item 11), as Open WebUI's model management and the
 * official `ollama` client meet them: the built emulator in its own process, two node agents whose
 * heartbeats are rare (so only the router's own bookkeeping can make a change show at once) and a polled
 * node; `delete()` and `copy()` through the client, raw HTTP for the exact statuses and bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ollama } from 'ollama';
import {
  CATALOG,
  DEFAULT_IMAGE_MODELS,
  DEFAULT_TEXT_EMBEDDING_MODELS,
  type SimAgent,
  type SimNode,
  startSimAgent,
  startSimNode,
} from '../../emulator/sim';
import { eventually, type RouterProcess, startRouter } from './router-process';

let router: RouterProcess;
let plain: SimNode;
let first: SimAgent;
let second: SimAgent;
let ollama: Ollama;

const catalog = (names: readonly string[]) => CATALOG.filter((entry) => names.includes(entry.name));
const SHARED = ['llama3.2:3b', 'qwen3:8b', 'gemma3:12b', 'llama3.2:1b'];

const fleetNodes = (details: object | undefined): unknown =>
  details === undefined ? undefined : Reflect.get(details, 'fleet_nodes');

async function listed(): Promise<Map<string, unknown>> {
  const { models } = await ollama.list();
  return new Map(models.map((model) => [model.name, fleetNodes(model.details)]));
}

function send(method: 'DELETE' | 'POST', path: string, body: unknown): Promise<Response> {
  return fetch(`${router.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** What the ollama client threw: its `ResponseError` carries the status and the server's words. */
async function refusal(call: Promise<unknown>): Promise<{ status: unknown; error: unknown }> {
  const error = await call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (reason: unknown) => reason,
  );
  return { status: Reflect.get(error as object, 'status_code'), error: Reflect.get(error as object, 'error') };
}

beforeAll(async () => {
  plain = await startSimNode({ id: 'plain', models: catalog(['qwen2.5:32b', 'llava:7b']) });
  router = await startRouter({ FLEET_NODES: `plain=${plain.url}` });
  const agent = (nodeId: string, sidecars: boolean) =>
    startSimAgent({
      nodeId,
      routerUrl: router.url,
      intervalMs: 600_000,
      ollamaOptions: { id: nodeId, models: catalog(SHARED), loaded: ['llama3.2:3b'] },
      ...(sidecars ? { image: DEFAULT_IMAGE_MODELS, textEmbedding: DEFAULT_TEXT_EMBEDDING_MODELS } : {}),
    });
  [first, second] = await Promise.all([agent('first', true), agent('second', false)]);
  await Promise.all([first.sendHeartbeat(), second.sendHeartbeat()]);
  ollama = new Ollama({ host: router.url });
  await eventually(async () => {
    // The agents' own first heartbeats too: one still being recorded (the router describes each model on
    // the node first) would land after a delete and bring the deleted model back.
    expect([first.heartbeatsSent, second.heartbeatsSent]).toEqual([2, 2]);
    const models = await listed();
    expect(models.get('llama3.2:3b')).toEqual(['first', 'second']);
    expect(models.get('qwen2.5:32b')).toEqual(['plain']);
  });
}, 30_000);

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop(), plain?.close()]);
  await router?.stop();
});

describe('DELETE /api/delete', () => {
  it('deletes the model on every node that holds it through the ollama client; list() no longer has it', async () => {
    const reply = await ollama.delete({ model: 'llama3.2:3b' });
    const models = await listed();
    const { models: hot } = await ollama.ps();

    expect(reply).toEqual({ status: 'success' });
    expect(models.has('llama3.2:3b')).toBe(false);
    expect(hot.map((model) => model.name)).not.toContain('llama3.2:3b');
    expect(first.node.snapshot().models.map((model) => model.name)).not.toContain('llama3.2:3b');
    expect(second.node.snapshot().models.map((model) => model.name)).not.toContain('llama3.2:3b');
  });

  it('answers 200 with an empty body and the nodes in X-Fleet-Nodes, taking the legacy name field', async () => {
    const response = await send('DELETE', '/api/delete', { name: 'llama3.2:1b' });

    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
    expect(response.headers.get('x-fleet-nodes')).toBe('first,second');
  });

  it("answers a model no node holds with Ollama's 404", async () => {
    const response = await send('DELETE', '/api/delete', { model: 'no-such-model:1b' });

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "model 'no-such-model:1b' not found" });
    expect(await refusal(ollama.delete({ model: 'no-such-model:1b' }))).toEqual({
      status: 404,
      error: "model 'no-such-model:1b' not found",
    });
  });

  it('names the node that failed when one of the holders answers 500, and lists the model only there', async () => {
    second.node.faults.failNext(1, 500);

    const response = await send('DELETE', '/api/delete', { model: 'gemma3:12b' });
    const body = (await response.json()) as Record<string, unknown>;
    const models = await listed();

    expect(response.status).toBe(502);
    expect(body['failed_nodes']).toEqual(['second']);
    expect(body['succeeded_nodes']).toEqual(['first']);
    expect(body['error']).toBe("deleting model 'gemma3:12b' failed on second (500: simulated failure); done on first");
    expect(models.get('gemma3:12b')).toEqual(['second']);
  });

  it('deletes on the node named by node_id only, a polled node too', async () => {
    const response = await send('DELETE', '/api/delete', { model: 'llava:7b', node_id: 'plain' });

    expect(response.status).toBe(200);
    expect(response.headers.get('x-fleet-nodes')).toBe('plain');
    expect(plain.snapshot().models.map((model) => model.name)).not.toContain('llava:7b');
    await eventually(async () => expect((await listed()).has('llava:7b')).toBe(false));
  });

  it('answers an unknown node_id with 404 naming it, and a missing model with 400', async () => {
    const unknown = await send('DELETE', '/api/delete', { model: 'qwen3:8b', node_id: 'nowhere' });
    const missing = await send('DELETE', '/api/delete', {});

    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "node 'nowhere' not found" });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: 'model is required' });
  });

  it('refuses a sidecar model with 400 naming the node and how to remove it there', async () => {
    const response = await send('DELETE', '/api/delete', { model: 'z-image-turbo' });
    const { error } = (await response.json()) as { error: string };

    expect(response.status).toBe(400);
    expect(error).toContain("'z-image-turbo' is served by the image sidecar of node 'first', not by its Ollama");
    expect(error).toContain('uv tool uninstall mflux');
    expect((await listed()).get('z-image-turbo')).toEqual(['first']);
  });
});

describe('POST /api/copy', () => {
  it('copies on every node that holds the source through the ollama client; list() has the new name', async () => {
    const reply = await ollama.copy({ source: 'qwen3:8b', destination: 'my-qwen' });
    const models = await listed();

    expect(reply).toEqual({ status: 'success' });
    expect(models.get('my-qwen:latest')).toEqual(['first', 'second']);
    expect(models.get('qwen3:8b')).toEqual(['first', 'second']);
    expect(second.node.snapshot().models.map((model) => model.name)).toContain('my-qwen:latest');
  });

  it("answers a source no node holds with Ollama's 404, and a missing destination with 400", async () => {
    const unknown = await send('POST', '/api/copy', { source: 'nope:1b', destination: 'other' });
    const missing = await send('POST', '/api/copy', { source: 'qwen3:8b' });

    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'model "nope:1b" not found' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: 'destination is required' });
  });
});

describe('POST /api/create and POST /api/push', () => {
  it('answers create with 501 in Ollama shape, naming how to create on a node and /api/copy', async () => {
    const { status, error } = await refusal(ollama.create({ model: 'mine', from: 'qwen3:8b' }));

    expect(status).toBe(501);
    expect(error).toContain('OLLAMA_HOST=<node address> ollama create mine');
    expect(error).toContain('/api/copy');
  });

  it('answers push with 501 in Ollama shape, naming the nodes that hold the model', async () => {
    const response = await send('POST', '/api/push', { model: 'qwen3:8b', stream: true });
    const { error } = (await response.json()) as { error: string };

    expect(response.status).toBe(501);
    expect(error).toContain('(it is on first, second)');
    expect(error).toContain('OLLAMA_HOST=<node address> ollama push qwen3:8b');
    expect((await refusal(ollama.push({ model: 'qwen3:8b' }))).status).toBe(501);
  });
});
