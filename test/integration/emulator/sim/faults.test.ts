import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type SimNode, startSimNode } from '../../../../emulator/sim';
import { fetchErrorCode, postJson, readLines } from './helpers';

const CHAT = { model: 'llama3.2:3b', messages: [{ role: 'user', content: 'ping' }], options: { num_predict: 6 } };

describe('simulated node faults', () => {
  let node: SimNode;

  beforeAll(async () => {
    node = await startSimNode({ loaded: ['llama3.2:3b'], ttftMs: 5, tokensPerSecond: 500 });
  });

  afterEach(async () => {
    await node.faults.reset();
  });

  afterAll(async () => {
    await node.close();
  });

  it('fails exactly the next n model requests with the given status, leaving polling alone', async () => {
    node.faults.failNext(2, 503);
    const first = await postJson(`${node.url}/api/chat`, CHAT);
    const tags = await fetch(`${node.url}/api/tags`);
    const second = await postJson(`${node.url}/api/chat`, CHAT);
    const third = await postJson(`${node.url}/api/chat`, { ...CHAT, stream: false });
    expect(first.status).toBe(503);
    expect(await first.json()).toEqual({ error: 'simulated failure' });
    expect(tags.status).toBe(200);
    expect(second.status).toBe(503);
    expect(third.status).toBe(200);
    expect(node.faults.state().failNext).toBe(0);
  });

  it('refuses connections, then listens again on the same port', async () => {
    const port = node.port;
    await node.faults.refuseConnections(true);
    expect(await fetchErrorCode(`${node.url}/api/version`)).toBe('ECONNREFUSED');
    await node.faults.refuseConnections(false);
    expect(node.port).toBe(port);
    const res = await fetch(`${node.url}/api/version`);
    expect(res.status).toBe(200);
  });

  it('hangs requests until the client gives up, while the control route still answers', async () => {
    node.faults.hang(true);
    const started = performance.now();
    const outcome = await fetch(`${node.url}/api/tags`, { signal: AbortSignal.timeout(150) }).then(
      () => 'answered',
      (error: Error) => error.name,
    );
    expect(outcome).toBe('TimeoutError');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    const state = (await (await fetch(`${node.url}/_sim/state`)).json()) as { faults: { hanging: boolean } };
    expect(state.faults.hanging).toBe(true);
  });

  it('drops the next stream after n lines, without a done line', async () => {
    node.faults.dropMidStream(3);
    const res = await postJson(`${node.url}/api/chat`, CHAT);
    const { lines, failed } = await readLines(res);
    expect(failed).toBe(true);
    expect(lines).toHaveLength(3);
    expect(lines.some((line) => line.includes('"done":true'))).toBe(false);
    const next = await readLines(await postJson(`${node.url}/api/chat`, CHAT));
    expect(next.lines).toHaveLength(7);
  });

  it('writes one malformed line into the next stream after n lines', async () => {
    node.faults.malformedLine(2);
    const { lines } = await readLines(await postJson(`${node.url}/api/chat`, CHAT));
    expect(lines).toHaveLength(8);
    expect(() => JSON.parse(lines[2] ?? '')).toThrow();
    const parsed = [...lines.slice(0, 2), ...lines.slice(3)].map((line) => JSON.parse(line) as { done: boolean });
    expect(parsed[parsed.length - 1]?.done).toBe(true);
  });

  it('delays the first byte of model requests', async () => {
    node.faults.slowFirstByte(150);
    const started = performance.now();
    const res = await postJson(`${node.url}/api/show`, { model: 'llama3.2:3b' });
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('takes fault patches from POST /_sim/faults and rejects bad ones', async () => {
    const set = await postJson(`${node.url}/_sim/faults`, { failNext: 1, failStatus: 502 });
    expect(set.status).toBe(200);
    expect(((await set.json()) as { faults: { failNext: number } }).faults.failNext).toBe(1);
    expect((await postJson(`${node.url}/api/chat`, CHAT)).status).toBe(502);
    expect((await postJson(`${node.url}/api/chat`, { ...CHAT, stream: false })).status).toBe(200);
    const bad = await postJson(`${node.url}/_sim/faults`, { explode: true });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'unknown fault knob: explode' });
  });

  it('refuses connections when asked over the control route', async () => {
    const res = await postJson(`${node.url}/_sim/faults`, { refuseConnections: true });
    expect(res.status).toBe(200);
    expect(await fetchErrorCode(`${node.url}/`)).toBe('ECONNREFUSED');
  });

  it('refuses connections for a number of ms, then listens again on its own', async () => {
    await node.faults.reset();
    const res = await postJson(`${node.url}/_sim/faults`, { refuseConnections: 300 });
    expect(res.status).toBe(200);
    expect(await fetchErrorCode(`${node.url}/`)).toBe('ECONNREFUSED');

    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await fetch(`${node.url}/`)).status).toBe(200);
    expect(node.faults.state().refusing).toBe(false);
  });

  it('rejects a refusal of no time', async () => {
    await node.faults.reset();
    const res = await postJson(`${node.url}/_sim/faults`, { refuseConnections: 0 });
    expect(res.status).toBe(400);
  });

  it('clears every fault on reset', async () => {
    node.faults.failNext(5);
    node.faults.hang(true);
    node.faults.slowFirstByte(1000);
    await node.faults.reset();
    expect(node.faults.state()).toEqual({
      failNext: 0,
      failStatus: 500,
      refusing: false,
      hanging: false,
      dropMidStreamAfter: null,
      malformedLineAfter: null,
      slowFirstByteMs: 0,
    });
    expect((await postJson(`${node.url}/api/chat`, { ...CHAT, stream: false })).status).toBe(200);
  });
});
