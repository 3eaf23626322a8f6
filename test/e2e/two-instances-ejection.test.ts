/**
 * A hung node costs the fleet one wait, not one per instance (issue 45 item 2; ARCHITECTURE.md §3.6):
 * two router instances on one table, a third started later, and two node agents that heartbeat to A
 * only. One node accepts and never answers. A's request on it waits out the first-byte deadline (short
 * here), the node is ejected and the ejection published on its item; B, which had read the fleet
 * before, and C, whose first request is its first read of the fleet, send nothing to the hung node.
 * Each client request's time is measured: a request that waited on the hung node takes the deadline,
 * one that did not takes milliseconds. When A and B both send before either has ejected the node, each
 * waits once — the bound is one wait per instance whose request was already on the node. C's dashboard
 * shows the ejection A saw, naming A.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import type { SimAgent } from '../../emulator/sim';
import { launchBrowser, openPage } from './dashboard/harness';
import { agentPostingTo, type InstancePair, startInstancePair } from './instance-pair';
import { eventually, type RouterProcess } from './router-process';

/** The routers' first-byte deadline here (FLEET_FIRST_BYTE_TIMEOUT_MS): short, so the test waits seconds. */
const FIRST_BYTE_TIMEOUT_MS = 1500;
/** A request that took this long waited on the hung node; a served one takes a few ms. */
const WAITED_MS = FIRST_BYTE_TIMEOUT_MS - 100;
/**
 * The longest a wait may take: the deadline, plus up to a second more (undici checks its header
 * deadlines on a timer of about a second), plus the retry on the peer.
 */
const WAIT_BOUND_MS = FIRST_BYTE_TIMEOUT_MS + 2000;
/** How long a published ejection may take to reach another instance: a write and its next snapshot read. */
const PUBLICATION_BOUND_MS = 2000;

let pair: InstancePair;
let browser: Browser;
const agents: SimAgent[] = [];

beforeAll(async () => {
  [pair, browser] = await Promise.all([
    startInstancePair({ FLEET_FIRST_BYTE_TIMEOUT_MS: String(FIRST_BYTE_TIMEOUT_MS) }),
    launchBrowser(),
  ]);
}, 60_000);

afterEach(async () => {
  for (const agent of agents) agent.node.faults.hang(false);
  await Promise.all(agents.splice(0).map((agent) => agent.stop()));
});

afterAll(async () => {
  await browser?.close();
  await pair?.stop();
});

/** A node agent with `model` loaded, posting its heartbeats to A only (the first at once). */
async function agentOnA(nodeId: string, model: string): Promise<SimAgent> {
  const agent = await agentPostingTo(pair.a.url, nodeId, model);
  agents.push(agent);
  return agent;
}

interface Timed {
  readonly router: string;
  readonly status: number;
  readonly node: string | null;
  readonly retries: string | null;
  readonly ms: number;
}

let asked = 0;

/** One chat through `router`, read to its end, timed from send to the last byte. */
async function chat(router: RouterProcess, name: string, model: string): Promise<Timed> {
  asked += 1;
  const started = Date.now();
  const response = await fetch(`${router.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: `hung ${asked} ${process.pid}` }],
      stream: false,
    }),
    signal: AbortSignal.timeout(30_000),
  });
  await response.arrayBuffer();
  return {
    router: name,
    status: response.status,
    node: response.headers.get('x-fleet-node'),
    retries: response.headers.get('x-fleet-retries'),
    ms: Date.now() - started,
  };
}

interface Ejection {
  readonly ejected: boolean;
  readonly cause: string | null;
  readonly seen_by: string | null;
  readonly until: string | null;
}

async function ejectionOn(router: RouterProcess, nodeId: string): Promise<Ejection | undefined> {
  const body = (await (await fetch(`${router.url}/fleet/status`)).json()) as {
    nodes: { node_id: string; ejection?: Ejection }[];
  };
  return body.nodes.find((node) => node.node_id === nodeId)?.ejection;
}

async function seesNodes(router: RouterProcess, ids: readonly string[]): Promise<void> {
  await eventually(async () => {
    const body = (await (await fetch(`${router.url}/fleet/status`)).json()) as {
      nodes: { node_id: string; status: string }[];
    };
    const online = body.nodes.filter((node) => node.status === 'online').map((node) => node.node_id);
    expect(online).toEqual(expect.arrayContaining([...ids]));
  });
}

function summary(answers: readonly Timed[]): string {
  return answers.map((answer) => `${answer.router}:${answer.node}:${answer.ms}ms`).join(' ');
}

describe('a node that accepts and never answers, under two instances and a third started later', () => {
  it('costs the fleet one wait: A waits out the deadline once, B and a fresh C go to the peer at once', async () => {
    const model = 'llama3.2:3b';
    // Both hot: the lower id (`hang-a`) wins the tie, so every instance would pick the hung node first.
    const [hung] = await Promise.all([agentOnA('hang-a', model), agentOnA('hang-b', model)]);
    await seesNodes(pair.a, ['hang-a', 'hang-b']);
    await seesNodes(pair.b, ['hang-a', 'hang-b']);
    expect((await chat(pair.b, 'B', model)).node).toBe('hang-a');

    hung?.node.faults.hang(true);
    const onA = await chat(pair.a, 'A', model);
    const ejectedAt = Date.now();
    const seenOnA = await ejectionOn(pair.a, 'hang-a');
    const seenOnB = await eventually(async () => {
      const ejection = await ejectionOn(pair.b, 'hang-a');
      expect(ejection?.ejected).toBe(true);
      return ejection;
    });
    const reachedB = Date.now() - ejectedAt;
    const onB = [await chat(pair.b, 'B', model), await chat(pair.b, 'B', model), await chat(pair.b, 'B', model)];
    const c = await pair.another();
    // C's very first request: its first read of the fleet brings the ejection with it.
    const onC = [await chat(c, 'C', model), await chat(c, 'C', model)];
    const seenOnC = await ejectionOn(c, 'hang-a');
    const againOnA = await chat(pair.a, 'A', model);
    const answers = [onA, ...onB, ...onC, againOnA];
    const waits = answers.filter((answer) => answer.ms >= WAITED_MS);
    console.log(
      `hung node, one instance after another: ${waits.length} of ${answers.length} requests waited ` +
        `(${waits.map((answer) => `${answer.ms} ms`).join(', ')}); the ejection reached B's status ${reachedB} ms ` +
        `after A's answer; ${summary(answers)}`,
    );

    expect(answers.map((answer) => [answer.status, answer.node])).toEqual(answers.map(() => [200, 'hang-b']));
    expect(waits).toEqual([onA]);
    expect(onA.ms).toBeLessThan(WAIT_BOUND_MS);
    expect(onA.retries).toBe('1');
    for (const answer of answers.slice(1)) {
      expect(answer.retries).toBeNull();
      expect(answer.ms).toBeLessThan(WAITED_MS);
    }
    expect(reachedB).toBeLessThan(PUBLICATION_BOUND_MS);
    expect(seenOnA).toMatchObject({ ejected: true, cause: 'first-byte-timeout' });
    expect(seenOnA?.seen_by).toEqual(expect.any(String));
    for (const seen of [seenOnB, seenOnC]) {
      expect(seen).toMatchObject({ ejected: true, cause: 'first-byte-timeout', seen_by: seenOnA?.seen_by });
    }

    // C's dashboard: the node card of the hung node says it is out of routing, why, and that A saw it.
    const { page, errors, context } = await openPage(browser);
    await page.goto(`${c.url}/dashboard/fleet`);
    const card = page.getByRole('article', { name: 'hang-a', exact: true });
    const words = card.locator('.node-error', { hasText: 'Out of routing' });
    await words.waitFor({ timeout: 10_000 });
    const text = await words.textContent();
    await context.close();
    expect(text).toContain('no first byte in time');
    expect(text).toContain(`seen by instance ${seenOnA?.seen_by}`);
    expect(errors).toEqual([]);
  }, 60_000);

  it('makes each instance that had a request on the node before the ejection wait once, and none after', async () => {
    const model = 'llama3.2:1b';
    const [hung] = await Promise.all([agentOnA('stuck-a', model), agentOnA('stuck-b', model)]);
    await seesNodes(pair.a, ['stuck-a', 'stuck-b']);
    await seesNodes(pair.b, ['stuck-a', 'stuck-b']);

    hung?.node.faults.hang(true);
    const together = await Promise.all([chat(pair.a, 'A', model), chat(pair.b, 'B', model)]);
    const after = [
      await chat(pair.a, 'A', model),
      await chat(pair.b, 'B', model),
      await chat(pair.a, 'A', model),
      await chat(pair.b, 'B', model),
    ];
    const answers = [...together, ...after];
    const waits = answers.filter((answer) => answer.ms >= WAITED_MS);
    console.log(
      `hung node, two instances at once: ${waits.length} of ${answers.length} requests waited ` +
        `(${waits.map((answer) => `${answer.ms} ms`).join(', ')}); ${summary(answers)}`,
    );

    expect(answers.map((answer) => [answer.status, answer.node])).toEqual(answers.map(() => [200, 'stuck-b']));
    expect(waits).toEqual(together);
    for (const answer of together) expect(answer.ms).toBeLessThan(WAIT_BOUND_MS);
    for (const answer of after) expect(answer.ms).toBeLessThan(WAITED_MS);
  }, 60_000);
});
