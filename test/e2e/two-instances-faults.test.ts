/**
 * Faults across two instances (issue 45 item 4; ARCHITECTURE.md §3.9): two built emulators on one table
 * process, node agents posting their heartbeats to A only, and clients loading both instances at once
 * while one node of a model fails beside a healthy one — (a) it refuses connections, (b) it accepts and
 * never answers, (c) it cuts every stream after two lines — and then (d) while the table process is
 * stopped (SIGSTOP) for 20 s. Every request, in the three wire families in turn, gets a correct answer
 * or a clean error in its family's shape within the bound of its fault; every request is traced exactly
 * once (its final trace, read through the dashboard API once the table is back, a cut stream as one
 * trace with its failure). What each instance's requests paid on the faulty node is printed: how many
 * went there and how long they took.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SimAgent } from '../../emulator/sim';
import { type Family, inBandError, parsedOrText, shapeProblem } from './family-shapes';
import { agentPostingTo, type InstancePair, startInstancePair } from './instance-pair';
import { eventually, type RouterProcess } from './router-process';

/** The routers' first-byte deadline (FLEET_FIRST_BYTE_TIMEOUT_MS): short, so a hang costs seconds. */
const FIRST_BYTE_TIMEOUT_MS = 1500;
/** A request that took this long waited out the deadline on the hung node. */
const WAITED_MS = FIRST_BYTE_TIMEOUT_MS - 100;
/** The deadline, undici's header timer (about a second), and the retry on the healthy node. */
const HANG_BOUND_MS = FIRST_BYTE_TIMEOUT_MS + 2000;
/**
 * A refused connect or a cut stream costs a retry or an in-band error, never a deadline: what such a
 * request takes is the node's answer and the first burst's start on a node two instances share (§3.6),
 * on a machine the test shares with the routers and the table.
 */
const QUICK_BOUND_MS = 3000;
/** Failures in a row that eject a node (FLEET_EJECT_AFTER_FAILURES, the default). */
const EJECT_AFTER_FAILURES = 3;
/** How long the table is stopped in (d). */
const TABLE_STOP_MS = 20_000;
/**
 * While the table is stopped an instance routes on its snapshot (§3.5), but the other instance's last
 * published queue counts stand until they expire (10 s, §3.6): a request held back by them may wait
 * that long, then the instance acts alone.
 */
const TABLE_STOP_BOUND_MS = 12_000;
const CLIENTS_PER_INSTANCE = 3;
const REQUESTS_PER_CLIENT = 4;
const FAMILIES: readonly Family[] = ['ollama', 'openai', 'anthropic'];
const PATHS: Readonly<Record<Family, string>> = {
  ollama: '/api/chat',
  openai: '/v1/chat/completions',
  anthropic: '/v1/messages',
};

let pair: InstancePair;
const agents: SimAgent[] = [];
const run = `${process.pid}-${Date.now()}`;

beforeAll(async () => {
  pair = await startInstancePair({ FLEET_FIRST_BYTE_TIMEOUT_MS: String(FIRST_BYTE_TIMEOUT_MS) });
}, 30_000);

afterAll(async () => {
  pair?.dynamo.resume();
  for (const agent of agents) agent.node.faults.hang(false);
  await Promise.all(agents.map((agent) => agent.stop()));
  await pair?.stop();
});

/** A node agent serving `model` (four slots), posting a heartbeat to A every 2 s, the first at once. */
async function agentOnA(nodeId: string, model: string): Promise<SimAgent> {
  const agent = await agentPostingTo(pair.a.url, nodeId, model, { numParallel: 4 }, 2000);
  agents.push(agent);
  return agent;
}

async function bothSee(ids: readonly string[]): Promise<void> {
  for (const router of [pair.a, pair.b]) {
    await eventually(async () => {
      const body = (await (await fetch(`${router.url}/fleet/status`)).json()) as {
        nodes: { node_id: string; status: string }[];
      };
      const online = body.nodes.filter((node) => node.status === 'online').map((node) => node.node_id);
      expect(online).toEqual(expect.arrayContaining([...ids]));
    });
  }
}

/** What one client request came to. */
interface Outcome {
  readonly instance: 'A' | 'B';
  readonly client: number;
  readonly family: Family;
  readonly tag: string;
  readonly status: number;
  readonly node: string | null;
  readonly retries: number;
  readonly ms: number;
  /** `answered`, `in-band error`, `error <status>`; anything else says what is wrong with the reply. */
  readonly verdict: string;
}

/** Whether a reply is a correct answer or a clean error in its family's shape; what is wrong otherwise. */
function verdictOf(family: Family, stream: boolean, status: number, headers: Headers, text: string): string {
  if (status !== 200) {
    const problem = shapeProblem(family, parsedOrText(text));
    if (problem !== undefined) return `${status}: ${problem}`;
    if (status === 503 && headers.get('retry-after') === null) return '503 without Retry-After';
    return `error ${status}`;
  }
  if (stream) {
    const error = inBandError(family, text);
    if (error !== undefined) {
      const problem = shapeProblem(family, error);
      return problem === undefined ? 'in-band error' : `in-band: ${problem}`;
    }
    const ended =
      family === 'ollama'
        ? (parsedOrText(text.trim().split('\n').at(-1) ?? '') as { done?: unknown }).done === true
        : family === 'openai'
          ? text.includes('data: [DONE]')
          : text.includes('event: message_stop');
    return ended ? 'answered' : 'a stream cut without an error';
  }
  const body = parsedOrText(text) as Record<string, unknown>;
  const content =
    family === 'ollama'
      ? (body['message'] as { content?: unknown } | undefined)?.content
      : family === 'openai'
        ? (body['choices'] as { message?: { content?: unknown } }[] | undefined)?.[0]?.message?.content
        : (body['content'] as { text?: unknown }[] | undefined)?.[0]?.text;
  return typeof content === 'string' && content !== '' ? 'answered' : `200 without an answer: ${text.slice(0, 120)}`;
}

let sequence = 0;

async function send(
  router: RouterProcess,
  instance: 'A' | 'B',
  client: number,
  scenario: string,
  model: string,
  stream: boolean,
): Promise<Outcome> {
  sequence += 1;
  const family = FAMILIES[sequence % FAMILIES.length] as Family;
  const tag = `tf-${run}-${scenario}-${sequence}`;
  const messages = [{ role: 'user', content: `fault ${scenario} request ${sequence}: say a few words` }];
  const body = family === 'ollama' ? { model, messages, stream } : { model, messages, stream, max_tokens: 32 };
  const started = Date.now();
  const response = await fetch(`${router.url}${PATHS[family]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-tags': `tf-${run}-${scenario},${tag}` },
    body: JSON.stringify(body),
    // Far past every bound asserted: a hang shows as a failed bound, not a test time-out.
    signal: AbortSignal.timeout(40_000),
  });
  const text = await response.text();
  return {
    instance,
    client,
    family,
    tag,
    status: response.status,
    node: response.headers.get('x-fleet-node'),
    retries: Number(response.headers.get('x-fleet-retries') ?? 0),
    ms: Date.now() - started,
    verdict: verdictOf(family, stream, response.status, response.headers, text),
  };
}

/** Clients on both instances at once, each sending its requests one after another until `more()` is false. */
async function load(
  scenario: string,
  model: string,
  options: { stream?: boolean; more?: (sent: number) => boolean; gapMs?: number } = {},
): Promise<Outcome[]> {
  const more = options.more ?? ((sent: number) => sent < REQUESTS_PER_CLIENT);
  const outcomes: Outcome[] = [];
  const client = async (router: RouterProcess, instance: 'A' | 'B', index: number) => {
    for (let sent = 0; more(sent); sent += 1) {
      outcomes.push(await send(router, instance, index, scenario, model, options.stream ?? false));
      if (options.gapMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.gapMs));
    }
  };
  await Promise.all(
    [pair.a, pair.b].flatMap((router, side) =>
      Array.from({ length: CLIENTS_PER_INSTANCE }, (_, index) => client(router, side === 0 ? 'A' : 'B', index)),
    ),
  );
  return outcomes;
}

interface TraceRow {
  readonly status: string;
  readonly tags: readonly string[];
  readonly error_message: string | null;
}

/** The final traces (a retried attempt is not one) of `scenario`'s requests, by request tag, read through `router`. */
async function finalTraces(router: RouterProcess, scenario: string): Promise<Map<string, TraceRow[]>> {
  const response = await fetch(`${router.url}/dashboard/api/traces?tag=tf-${run}-${scenario}&limit=500`);
  expect(response.status).toBe(200);
  const { traces } = (await response.json()) as { traces: TraceRow[] };
  const byTag = new Map<string, TraceRow[]>();
  for (const trace of traces) {
    if (trace.status === 'retried') continue;
    for (const tag of trace.tags) {
      if (!tag.startsWith(`tf-${run}-${scenario}-`)) continue;
      byTag.set(tag, [...(byTag.get(tag) ?? []), trace]);
    }
  }
  return byTag;
}

/** Waits until every request of `outcomes` has its one final trace, then checks that no second one comes. */
async function tracedOnce(scenario: string, outcomes: readonly Outcome[], timeoutMs = 10_000) {
  const byTag = await eventually(async () => {
    const found = await finalTraces(pair.b, scenario);
    expect(found.size).toBe(outcomes.length);
    return found;
  }, timeoutMs);
  const counts = outcomes.map((outcome) => byTag.get(outcome.tag)?.length ?? 0);
  expect(counts.filter((count) => count !== 1)).toEqual([]);
  // Read through the other instance too: the same table, the same traces.
  const viaA = await finalTraces(pair.a, scenario);
  expect([...viaA.values()].map((list) => list.length).filter((count) => count !== 1)).toEqual([]);
  expect(viaA.size).toBe(outcomes.length);
  return byTag;
}

/** Per instance: how many requests touched the faulty node, and how long each took, for the log. */
function paid(outcomes: readonly Outcome[], touched: (outcome: Outcome) => boolean): string {
  return (['A', 'B'] as const)
    .map((instance) => {
      const mine = outcomes.filter((outcome) => outcome.instance === instance);
      const hit = mine.filter(touched);
      const slowest = Math.max(...mine.map((outcome) => outcome.ms));
      return `${instance}: ${hit.length} of ${mine.length} on it (${hit.map((o) => `${o.ms} ms`).join(', ') || '-'}), slowest ${slowest} ms`;
    })
    .join('; ');
}

function expectAllClean(outcomes: readonly Outcome[], allowed: readonly string[]): void {
  expect(outcomes.filter((outcome) => !allowed.includes(outcome.verdict))).toEqual([]);
}

describe('two instances under load while a node fails beside a healthy one', () => {
  it('(a) a node refusing connections: every request served by the healthy node, at once', async () => {
    const model = 'llama3.2:1b';
    // The lower id wins a tie: each instance's first choice is the faulty node.
    const [faulty] = await Promise.all([agentOnA('fa-refuse', model), agentOnA('ha-healthy', model)]);
    await bothSee(['fa-refuse', 'ha-healthy']);
    // Each instance's first routed request loads what a cold process loads (the node client among it):
    // warmed before the fault, so what is measured is the fault's cost.
    await Promise.all([pair.a, pair.b].map((router) => send(router, 'A', -1, 'warm', model, false)));
    await faulty?.node.faults.refuseConnections(true);

    const outcomes = await load('refuse', model);
    await faulty?.node.faults.refuseConnections(false);
    console.log(`refusing node: ${paid(outcomes, (outcome) => outcome.retries > 0)}`);

    expectAllClean(outcomes, ['answered']);
    expect(outcomes.filter((outcome) => outcome.node !== 'ha-healthy')).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.ms >= QUICK_BOUND_MS)).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.retries > 1)).toEqual([]);
    await tracedOnce('refuse', outcomes);
  }, 30_000);

  it('(b) a node that accepts and hangs: each client waits out the deadline at most once', async () => {
    const model = 'llama3.2:3b';
    const [faulty] = await Promise.all([agentOnA('fb-hang', model), agentOnA('hb-healthy', model)]);
    await bothSee(['fb-hang', 'hb-healthy']);
    faulty?.node.faults.hang(true);

    const outcomes = await load('hang', model);
    faulty?.node.faults.hang(false);
    console.log(`hung node: ${paid(outcomes, (outcome) => outcome.ms >= WAITED_MS)}`);

    expectAllClean(outcomes, ['answered']);
    expect(outcomes.filter((outcome) => outcome.node !== 'hb-healthy')).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.ms >= HANG_BOUND_MS)).toEqual([]);
    // One wait per client at most: once a client's request has waited, the node is ejected on its
    // instance, and published to the other.
    for (const instance of ['A', 'B'] as const) {
      for (let client = 0; client < CLIENTS_PER_INSTANCE; client += 1) {
        const waits = outcomes.filter(
          (outcome) => outcome.instance === instance && outcome.client === client && outcome.ms >= WAITED_MS,
        );
        expect(waits.length).toBeLessThanOrEqual(1);
      }
    }
    await tracedOnce('hang', outcomes);
  }, 30_000);

  it('(c) a node that cuts every stream mid-answer: an in-band error in the family shape, traced once as failed', async () => {
    const model = 'qwen3:8b';
    const [faulty] = await Promise.all([agentOnA('fc-drop', model), agentOnA('hc-healthy', model)]);
    await bothSee(['fc-drop', 'hc-healthy']);
    // One stream fault is taken per stream: armed again for every request that reaches the node.
    faulty?.node.faults.dropMidStream(2);
    const unsubscribe = faulty?.node.onRequest(() => faulty.node.faults.dropMidStream(2));

    const outcomes = await load('drop', model, { stream: true });
    unsubscribe?.();
    await faulty?.node.faults.reset();
    const cut = outcomes.filter((outcome) => outcome.verdict === 'in-band error');
    console.log(`node cutting streams: ${paid(outcomes, (outcome) => outcome.node === 'fc-drop')}`);

    expectAllClean(outcomes, ['answered', 'in-band error']);
    expect(cut.map((outcome) => outcome.node)).toEqual(cut.map(() => 'fc-drop'));
    // Three cut streams in a row eject the node on an instance; its other clients' streams already on the
    // node when that happens are cut too, and none after.
    for (const instance of ['A', 'B'] as const) {
      const mine = cut.filter((outcome) => outcome.instance === instance);
      expect(mine.length).toBeLessThanOrEqual(EJECT_AFTER_FAILURES + CLIENTS_PER_INSTANCE - 1);
    }
    expect(outcomes.filter((outcome) => outcome.verdict === 'answered' && outcome.node !== 'hc-healthy')).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.ms >= QUICK_BOUND_MS)).toEqual([]);
    const byTag = await tracedOnce('drop', outcomes);
    for (const outcome of cut) {
      const [trace] = byTag.get(outcome.tag) ?? [];
      expect(trace?.status).toMatch(/^(failed|incomplete)$/);
      expect(trace?.error_message).toEqual(expect.any(String));
    }
  }, 30_000);

  it('(d) the table stopped for 20 s under both: every request answered in bound, every trace written once', async () => {
    const model = 'gemma3:12b';
    await Promise.all([agentOnA('hd-one', model), agentOnA('hd-two', model)]);
    await bothSee(['hd-one', 'hd-two']);

    pair.dynamo.pause();
    const stoppedAt = Date.now();
    let outcomes: Outcome[];
    try {
      outcomes = await load('table', model, { more: () => Date.now() - stoppedAt < TABLE_STOP_MS, gapMs: 300 });
    } finally {
      pair.dynamo.resume();
    }
    const resumedAt = Date.now();
    console.log(
      `table stopped ${resumedAt - stoppedAt} ms: ${outcomes.length} requests, ` +
        `${paid(outcomes, (outcome) => outcome.ms >= 1000)} (on it: over 1 s)`,
    );

    expectAllClean(outcomes, ['answered']);
    expect(outcomes.filter((outcome) => outcome.ms >= TABLE_STOP_BOUND_MS)).toEqual([]);
    // Flushes that failed while the table was stopped wait out a backoff (write-behind, §3.5) until a read
    // of the fleet succeeds again: the table's deadline on the calls in flight, then a tick or two.
    await tracedOnce('table', outcomes, 30_000);
    console.log(`every trace of the stop in the table ${Date.now() - resumedAt} ms after it was back`);
  }, 70_000);
});
