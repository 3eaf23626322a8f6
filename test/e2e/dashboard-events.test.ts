/**
 * The live events and `/metrics` end to end: the built emulator in its own process (the dashboard and
 * fleet functions as separate instances, sharing the fleet through the table) and a node agent. The
 * events stream opens with the snapshot, shows a model the node loaded soon after its heartbeat, and
 * `/metrics` answers in Prometheus's format with the node's state.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CATALOG, type SimAgent, startSimAgent } from '../../emulator/sim';
import { type RouterProcess, startRouter } from './router-process';

let router: RouterProcess;
let agent: SimAgent;

beforeAll(async () => {
  router = await startRouter({});
  agent = await startSimAgent({
    nodeId: 'studio',
    routerUrl: router.url,
    intervalMs: 60_000,
    totalGb: 192,
    ollamaOptions: {
      id: 'studio',
      models: CATALOG.filter((entry) => ['gemma3:12b', 'llama3.2:3b'].includes(entry.name)),
      loaded: ['gemma3:12b'],
    },
  });
  await agent.sendHeartbeat();
});

afterAll(async () => {
  await agent?.stop();
  await router?.stop();
});

interface EventNode {
  node_id: string;
  ollama: { models_loaded: { name: string }[] };
}

/** Reads named events off an SSE body until `done` says one is what the test waits for. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  done: (name: string, data: { nodes: EventNode[] }) => boolean,
): Promise<string[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const names: string[] = [];
  let buffered = '';
  for (;;) {
    const { value, done: ended } = await reader.read();
    if (ended === true) throw new Error(`the stream ended after ${names.join(', ')}`);
    buffered += decoder.decode(value, { stream: true });
    let end = buffered.indexOf('\n\n');
    while (end >= 0) {
      const frame = /^event: (\w+)\ndata: (.*)$/s.exec(buffered.slice(0, end));
      buffered = buffered.slice(end + 2);
      end = buffered.indexOf('\n\n');
      if (frame === null) continue;
      names.push(frame[1] as string);
      if (done(frame[1] as string, JSON.parse(frame[2] as string))) {
        await reader.cancel();
        return names;
      }
    }
  }
}

const loadedOn = (data: { nodes: EventNode[] }, nodeId: string) =>
  data.nodes.find((node) => node.node_id === nodeId)?.ollama.models_loaded.map((model) => model.name) ?? [];

describe('GET /dashboard/events through the emulator', () => {
  it('opens with the snapshot, then shows a model the node loaded', async () => {
    const response = await fetch(`${router.url}/dashboard/events`);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const body = response.body as ReadableStream<Uint8Array>;

    const opening = await readEvents(body, (name, data) => name === 'snapshot' && loadedOn(data, 'studio').length > 0);
    const second = await fetch(`${router.url}/dashboard/events`);
    const seen = readEvents(second.body as ReadableStream<Uint8Array>, (_name, data) =>
      loadedOn(data, 'studio').includes('llama3.2:3b'),
    );
    agent.node.setLoaded(['gemma3:12b', 'llama3.2:3b']);
    await agent.sendHeartbeat();

    const names = await seen;

    expect(opening).toEqual(['snapshot']);
    // The second stream's snapshot was read before the load: the change came as an update.
    expect([names[0], names.at(-1)]).toEqual(['snapshot', 'update']);
  });
});

describe('GET /metrics through the emulator', () => {
  it('answers the text format with the node online', async () => {
    const response = await fetch(`${router.url}/metrics`);

    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await response.text()).toContain('fleet_node_status{node_id="studio",status="online"} 1\n');
  });
});
