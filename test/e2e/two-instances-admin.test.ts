/**
 * Two instances, one operator (issue 25 item 1; ARCHITECTURE.md §3.6): a runtime setting changed through
 * instance A is in force on instance B within a second, and a model pull through A locks the same pull
 * on B (409) until A's pull ends — or, when A is killed mid-pull, until the lock's TTL lapses
 * (`FLEET_PULL_LOCK_TTL_MS`, shortened here to 3 s from its two hours). The node agents post their
 * heartbeats to A only. The test that kills A runs last.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, DEFAULT_IMAGE_MODELS, type SimAgent, startSimAgent } from '../../emulator/sim';
import { type InstancePair, startInstancePair } from './instance-pair';
import { eventually, type RouterProcess } from './router-process';

/** How long a runtime setting may be cached by an instance (lib/services/settings/runtime-settings). */
const SETTINGS_BOUND_MS = 1000;
/** What the bound leaves out: the table read itself and this test's own polling. */
const READ_ALLOWANCE_MS = 250;
const PULL_LOCK_TTL_MS = 3000;

let pair: InstancePair;
let painter: SimAgent;
let store: SimAgent;

beforeAll(async () => {
  pair = await startInstancePair({ FLEET_PULL_LOCK_TTL_MS: String(PULL_LOCK_TTL_MS) });
  [painter, store] = await Promise.all([
    startSimAgent({
      nodeId: 'painter',
      routerUrl: pair.a.url,
      image: DEFAULT_IMAGE_MODELS,
      imageStepMs: 1,
      ollamaOptions: { id: 'painter', models: [] },
    }),
    // A roomy node with slow pulls (a progress line every 100 ms: about 1.5 s a pull).
    startSimAgent({
      nodeId: 'store',
      routerUrl: pair.a.url,
      totalGb: 192,
      ollamaOptions: { id: 'store', models: CATALOG.filter((entry) => entry.name === 'llama3.2:1b'), pullStepMs: 100 },
    }),
  ]);
  await eventually(async () => {
    const body = (await (await fetch(`${pair.b.url}/fleet/status`)).json()) as { nodes: { node_id: string }[] };
    expect(body.nodes.map((node) => node.node_id).sort()).toEqual(['painter', 'store']);
  });
}, 30_000);

afterAll(async () => {
  await Promise.all([painter?.stop(), store?.stop()]);
  await pair?.stop();
});

function post(router: RouterProcess, path: string, body: unknown): Promise<Response> {
  return fetch(`${router.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function imageStatus(router: RouterProcess): Promise<number> {
  const response = await post(router, '/api/generate-image', {
    model: 'z-image-turbo',
    prompt: 'two instances',
    width: 64,
    height: 64,
    steps: 1,
  });
  await response.arrayBuffer();
  return response.status;
}

/** A pull through `router`, answered whole (`stream: false`): its status and error, if any. */
async function pullWhole(router: RouterProcess, name: string): Promise<{ status: number; error?: unknown }> {
  const response = await post(router, '/api/pull', { name, stream: false });
  const body = (await response.json()) as { error?: unknown };
  return response.status === 200 ? { status: 200 } : { status: response.status, error: body.error };
}

/** Starts a pull through `router` and waits for its first progress line: the lock is held from here. */
async function pullUnderWay(router: RouterProcess, name: string): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const response = await post(router, '/api/pull', { name });
  expect(response.status).toBe(200);
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error('the pull has no body');
  await reader.read();
  return reader;
}

describe('two router instances on one table: settings and pulls', () => {
  it('puts a setting changed through A in force on B within a second', async () => {
    const before = await imageStatus(pair.b);

    const changed = await post(pair.a, '/dashboard/api/settings', { image_generation: true });
    const changedAt = Date.now();
    await changed.arrayBuffer();
    let status = before;
    let tookMs = 0;
    while (status !== 200 && Date.now() - changedAt < 5000) {
      tookMs = Date.now() - changedAt;
      status = await imageStatus(pair.b);
    }
    console.log(`image generation switched on through A: in force on B for a request sent ${tookMs} ms after`);

    expect(before).toBe(503);
    expect(changed.status).toBe(200);
    expect(status).toBe(200);
    expect(tookMs).toBeLessThan(SETTINGS_BOUND_MS + READ_ALLOWANCE_MS);
  });

  it('answers 409 on B while A pulls the model, and pulls it on B once A is done', async () => {
    const name = 'shared-pull:7b';
    const startedAt = Date.now();
    const pulling = await pullUnderWay(pair.a, name);

    const locked = await pullWhole(pair.b, name.toUpperCase());
    for (let chunk = await pulling.read(); !chunk.done; chunk = await pulling.read()) {
      // A's pull to its end.
    }
    const endedAfterMs = Date.now() - startedAt;
    const again = await pullWhole(pair.b, name);

    // The same model whatever its spelling; the message repeats the client's.
    expect(locked).toEqual({ status: 409, error: `model '${name.toUpperCase()}' is already being pulled` });
    // Freed by A's release, not by the TTL: the lock could not have lapsed yet.
    expect(endedAfterMs).toBeLessThan(PULL_LOCK_TTL_MS);
    expect(again).toEqual({ status: 200 });
  });

  it('frees the lock of a pull whose instance was killed, once its TTL lapses', async () => {
    const name = 'orphan-pull:7b';
    const startedAt = Date.now();
    await pullUnderWay(pair.a, name);
    const died = new Promise((resolve) => pair.a.process.once('exit', resolve));
    pair.a.process.kill('SIGKILL');
    await died;

    const orphaned = await pullWhole(pair.b, name);
    let freed = orphaned;
    let freedAfterMs = 0;
    while (freed.status === 409 && Date.now() - startedAt < PULL_LOCK_TTL_MS + 5000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      freedAfterMs = Date.now() - startedAt;
      freed = await pullWhole(pair.b, name);
    }
    console.log(`pull lock of a killed instance (TTL ${PULL_LOCK_TTL_MS} ms) taken over ${freedAfterMs} ms after it`);

    expect(orphaned.status).toBe(409);
    expect(freed).toEqual({ status: 200 });
    // The item's expiry is in whole seconds, rounded up, and a lock counts as lapsed from the next second on:
    // taken over between one and two seconds after the TTL (plus this test's polling).
    expect(freedAfterMs).toBeGreaterThanOrEqual(PULL_LOCK_TTL_MS + 1000);
    expect(freedAfterMs).toBeLessThan(PULL_LOCK_TTL_MS + 2500);
  }, 20_000);
});
