/**
 * Two instances, one fleet (issue 25 item 1; ARCHITECTURE.md §3.6): node agents post their heartbeats to
 * instance A only, and instance B — which shares nothing with A but the table — routes to those nodes,
 * stops routing to a node drained through A within the snapshot's bound, sends a conversation pinned on
 * A back to its node, and scores A's in-flight streams. Each test uses nodes and a model of its own, and
 * each is built so B alone would answer otherwise: the lower node id wins a tie (lib/core/scoring/rank-nodes),
 * so the node B must pick is the higher one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { SimAgent, SimNodeOptions } from '../../emulator/sim';
import { affinityKey } from '../../lib/services/store/keys';
import { agentPostingTo, type InstancePair, startInstancePair } from './instance-pair';
import { eventually, type RouterProcess } from './router-process';

/** How old an instance's fleet snapshot may be (`snapshotMaxAgeMs`, ARCHITECTURE.md §3.5): the drain bound. */
const SNAPSHOT_BOUND_MS = 1000;
/** What the bound leaves out: the fresh read itself (`snapshotWaitMs` at most) and this test's own polling. */
const READ_ALLOWANCE_MS = 250;

let pair: InstancePair;
const agents: SimAgent[] = [];

beforeAll(async () => {
  pair = await startInstancePair();
}, 30_000);

afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.stop()));
});

afterAll(async () => {
  await pair?.stop();
});

/** A node agent posting its heartbeats to instance A only (the first at once, then only when asked). */
async function agentOnA(nodeId: string, model: string, ollama: SimNodeOptions = {}): Promise<SimAgent> {
  const agent = await agentPostingTo(pair.a.url, nodeId, model, ollama);
  agents.push(agent);
  return agent;
}

interface Routed {
  readonly status: number;
  readonly node: string | null;
  readonly affinity: string | null;
}

/** A chat through `router`, read to its end; `messages` name the conversation. */
async function chat(router: RouterProcess, model: string, messages: readonly object[]): Promise<Routed> {
  const response = await fetch(`${router.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages, stream: false }),
  });
  await response.arrayBuffer();
  return {
    status: response.status,
    node: response.headers.get('x-fleet-node'),
    affinity: response.headers.get('x-fleet-affinity'),
  };
}

let asked = 0;
/** A one-turn conversation no other request started. */
const fresh = () => {
  asked += 1;
  return [{ role: 'user', content: `question ${asked} from ${process.pid}` }];
};

interface NodeStatus {
  readonly node_id: string;
  readonly status: string;
  readonly draining: boolean;
}

async function nodesOn(router: RouterProcess): Promise<NodeStatus[]> {
  const body = (await (await fetch(`${router.url}/fleet/status`)).json()) as { nodes: NodeStatus[] };
  return body.nodes;
}

/** Resolves once `router`'s snapshot holds every one of `ids` online. */
async function seesOnline(router: RouterProcess, ids: readonly string[]): Promise<void> {
  await eventually(async () => {
    const online = (await nodesOn(router)).filter((node) => node.status === 'online').map((node) => node.node_id);
    expect(online).toEqual(expect.arrayContaining([...ids]));
  });
}

describe('two router instances on one table', () => {
  it('routes through B to a node that registered by heartbeat on A only', async () => {
    const model = 'llama3.2:1b';
    await agentOnA('joined', model);

    const routed = await eventually(async () => {
      const answer = await chat(pair.b, model, fresh());
      expect(answer.status).toBe(200);
      return answer;
    });

    expect(routed.node).toBe('joined');
  });

  it('takes a node drained through A out of routing on B within the snapshot bound', async () => {
    const model = 'llama3.2:3b';
    // B prefers `drop` (the lower id) while it is in: the drain is what must move B's traffic to `keep`.
    const [drop] = await Promise.all([agentOnA('drop', model), agentOnA('keep', model)]);
    await seesOnline(pair.b, ['drop', 'keep']);
    expect((await chat(pair.b, model, fresh())).node).toBe('drop');

    await drop?.drain();
    const drainedAt = Date.now();
    const onA = await chat(pair.a, model, fresh());
    const onB: { readonly afterMs: number; readonly node: string | null }[] = [];
    while (Date.now() - drainedAt < SNAPSHOT_BOUND_MS + READ_ALLOWANCE_MS + 500) {
      const sentAfterMs = Date.now() - drainedAt;
      onB.push({ afterMs: sentAfterMs, node: (await chat(pair.b, model, fresh())).node });
    }
    const lastOnDrained = Math.max(-1, ...onB.filter((sent) => sent.node === 'drop').map((sent) => sent.afterMs));
    console.log(`drain on A: B routed to the drained node last ${lastOnDrained} ms after it (-1: never)`);

    expect(onA.node).toBe('keep');
    expect(lastOnDrained).toBeLessThan(SNAPSHOT_BOUND_MS + READ_ALLOWANCE_MS);
    expect(onB.filter((sent) => sent.afterMs >= SNAPSHOT_BOUND_MS + READ_ALLOWANCE_MS).length).toBeGreaterThan(0);
    expect((await nodesOn(pair.b)).find((node) => node.node_id === 'drop')?.draining).toBe(true);
  });

  it('sends a conversation pinned on A back to its node through B', async () => {
    const model = 'gemma3:12b';
    const first = { role: 'user', content: `pin this conversation (${process.pid})` };
    // The conversation starts on A while `pin-2` is the only node, so it is pinned there.
    await agentOnA('pin-2', model);
    await seesOnline(pair.a, ['pin-2']);
    const turn1 = await chat(pair.a, model, [first]);
    await agentOnA('pin-1', model);
    await seesOnline(pair.b, ['pin-1', 'pin-2']);
    // A writes its pins behind (at least once a second): the next turn is sent once the table holds it.
    await eventually(async () => {
      const pins = await pair.table().queryDocs(affinityKey('').pk);
      expect(pins.map((pin) => JSON.parse(pin.doc ?? '{}').nodeId)).toContain('pin-2');
    });

    const turn2 = await chat(pair.b, model, [first, { role: 'assistant', content: 'pinned.' }, fresh()[0] ?? {}]);
    const stranger = await chat(pair.b, model, fresh());

    expect(turn1).toMatchObject({ status: 200, node: 'pin-2' });
    expect(turn2).toMatchObject({ status: 200, node: 'pin-2', affinity: 'matched' });
    // Without the pin, B sends a conversation to the lower id.
    expect(stranger.node).toBe('pin-1');
  });

  it("scores A's streams in flight on B: B's queue shows them and B routes to the idle node", async () => {
    const model = 'qwen3:8b';
    // `busy-1` streams slowly; A holds two of its streams before `busy-2` joins, so both are on `busy-1`.
    await agentOnA('busy-1', model, { numParallel: 4, tokensPerSecond: 20 });
    await seesOnline(pair.a, ['busy-1']);
    const held = new AbortController();
    const streams = await Promise.all(
      [1, 2].map(async (index) => {
        const response = await fetch(`${pair.a.url}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          signal: held.signal,
          body: JSON.stringify({ model, messages: [{ role: 'user', content: `held stream ${index}, 2000 words` }] }),
        });
        await response.body?.getReader().read();
        return response.headers.get('x-fleet-node');
      }),
    );
    try {
      await agentOnA('busy-2', model, { numParallel: 4 });
      await seesOnline(pair.b, ['busy-1', 'busy-2']);

      const queue = await eventually(async () => {
        const body = (await (await fetch(`${pair.b.url}/fleet/queue`)).json()) as {
          queues: Record<string, { in_flight: number }>;
        };
        expect(body.queues[`busy-1:${model}`]?.in_flight).toBe(2);
        return body;
      });
      // B reads the others' published depths in the background, at most a second apart: its first request
      // after a quiet spell may score on older counts (lib/services/dispatch/fleet-depths).
      let tries = 0;
      const onB = await eventually(async () => {
        tries += 1;
        const answer = await chat(pair.b, model, fresh());
        expect(answer).toMatchObject({ status: 200, node: 'busy-2' });
        return answer;
      }, 3000);
      console.log(`B routed around A's streams on request ${tries}`);

      expect(streams).toEqual(['busy-1', 'busy-1']);
      expect(queue.queues[`busy-2:${model}`]?.in_flight ?? 0).toBe(0);
      expect(onB.node).toBe('busy-2');
    } finally {
      held.abort();
    }
  });
});
