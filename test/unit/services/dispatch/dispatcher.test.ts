import { describe, expect, it } from '@jest/globals';
import { NotFoundError, ServiceUnavailableError } from '../../../../lib/core/errors';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import { nodeUnreachable } from '../../../../lib/core/fleet/node-failure';
import { parseSharingPolicy } from '../../../../lib/core/queue/sharing-policy';
import type { RoutingRequest } from '../../../../lib/core/scoring/routing-request';
import { type RoutingStrategy, STRATEGIES } from '../../../../lib/core/scoring/routing-strategy';
import { type AbortSource, watchAbort } from '../../../../lib/core/stream/abort-source';
import { createAffinityTracker } from '../../../../lib/services/dispatch/affinity';
import { createAppLimits } from '../../../../lib/services/dispatch/app-limits';
import { createDispatcher, type DispatchTrail } from '../../../../lib/services/dispatch/dispatcher';
import { createFleetDepths } from '../../../../lib/services/dispatch/fleet-depths';
import { createLatencyStats } from '../../../../lib/services/dispatch/latency-stats';
import { createNodeRates } from '../../../../lib/services/dispatch/node-rates';
import { createOutlierEjection, DEFAULT_EJECTION } from '../../../../lib/services/dispatch/outlier-ejection';
import { createPrefillLedger } from '../../../../lib/services/dispatch/prefill-ledger';
import { createPrefixResidency } from '../../../../lib/services/dispatch/prefix-residency';
import { createQueueManager, type QueueManagerOptions } from '../../../../lib/services/dispatch/queue-manager';
import { RequestAbortedError } from '../../../../lib/services/dispatch/request-aborted';
import type { NodeReply, NodeTransport } from '../../../../lib/services/dispatch/transport';
import { agentNode, makeLoadedModel, makeNodeModel, makeRequest, snapshotOf, T0 } from '../../../helpers/factories';
import { manualTimers } from '../../../helpers/manual-timers';

const MODEL = 'llama3.2:3b';
/**
 * What a fake node does with a request: answer with a status, refuse, time out, hang until aborted, or
 * wait for the test to settle it (`held`).
 */
type Behaviour = number | 'refused' | 'timeout' | 'hang' | 'held';

/** An attempt the test settles: with undici's first-byte time-out, say. */
interface HeldSend {
  readonly nodeId: string;
  readonly fail: (error: Error) => void;
}

/** An error as undici raises it, with its code. */
const undiciError = (message: string, code: string) => Object.assign(new Error(message), { code });

const hot = (id: string, overrides: Partial<NodeRecord> = {}) =>
  agentNode({ id, loaded: [makeLoadedModel()], ...overrides });

interface Setup {
  readonly records: readonly NodeRecord[];
  readonly behaviour?: Readonly<Record<string, Behaviour>>;
  readonly maxRetries?: number;
  readonly queueOptions?: Omit<QueueManagerOptions, 'schedule' | 'clock'>;
  /** Depths other router instances published, by node id. */
  readonly elsewhere?: Readonly<Record<string, number>>;
  /** Outlier ejection on, with its defaults. */
  readonly ejecting?: boolean;
  readonly strategy?: RoutingStrategy;
  /** The snapshot is not at hand: it comes this long after it was asked for (a thawed process's read). */
  readonly snapshotReadMs?: number;
  /** FLEET_APP_LIMITS entries. */
  readonly appLimits?: readonly string[];
}

function setup({
  records,
  behaviour = {},
  maxRetries = 2,
  queueOptions = {},
  elsewhere = {},
  ejecting,
  strategy,
  snapshotReadMs,
  appLimits,
}: Setup) {
  const timers = manualTimers();
  let snapshot = snapshotOf(records);
  const queues = createQueueManager({ ...queueOptions, schedule: timers.schedule, clock: timers.clock });
  const affinity = createAffinityTracker({ clock: timers.clock });
  const latency = createLatencyStats();
  const rates = createNodeRates();
  const residency = createPrefixResidency();
  const prefill = createPrefillLedger();
  const calls: string[] = [];
  const cancelled: string[] = [];
  const signals: AbortSource[] = [];
  const held: HeldSend[] = [];
  const ejection = ejecting === true ? createOutlierEjection(DEFAULT_EJECTION) : undefined;
  const send: NodeTransport = (attempt, signal) => {
    const id = attempt.node.id;
    calls.push(`${id}/${attempt.model}`);
    signals.push(signal);
    const what = behaviour[id] ?? 200;
    if (what === 'refused') {
      const refused = undiciError(`connect ECONNREFUSED ${attempt.node.url}`, 'ECONNREFUSED');
      return Promise.reject(nodeUnreachable(refused, `${attempt.node.url}/api/chat`, 300_000));
    }
    if (what === 'held') return new Promise<NodeReply>((_, reject) => held.push({ nodeId: id, fail: reject }));
    if (what === 'timeout') {
      const late = undiciError('Headers Timeout Error', 'UND_ERR_HEADERS_TIMEOUT');
      return Promise.reject(nodeUnreachable(late, `${attempt.node.url}/api/chat`, 300_000));
    }
    if (what === 'hang') {
      return new Promise<NodeReply>((_, reject) => watchAbort(signal, () => reject(new Error('aborted'))));
    }
    timers.advance(40);
    const reply: NodeReply = {
      status: what,
      headers: { 'content-type': 'application/x-ndjson' },
      body: (async function* () {
        yield new TextEncoder().encode('{"done":true}\n');
      })(),
      cancel: () => cancelled.push(id),
    };
    return Promise.resolve(reply);
  };
  const depths = createFleetDepths(queues, {
    loadOthers: async () =>
      Object.entries(elsewhere).map(([nodeId, inFlight]) => ({ nodeId, model: MODEL, pending: 0, inFlight })),
    clock: timers.clock,
  });
  const dispatch = createDispatcher({
    snapshot: () =>
      snapshotReadMs === undefined
        ? snapshot
        : Promise.resolve().then(() => {
            timers.freeze(snapshotReadMs);
            return snapshot;
          }),
    queues,
    depths,
    affinity,
    latency,
    maxRetries,
    clock: timers.clock,
    rates,
    residency,
    prefill,
    ...(ejection !== undefined ? { ejection } : {}),
    ...(strategy !== undefined ? { strategy } : {}),
    ...(appLimits !== undefined ? { appLimits: createAppLimits(parseSharingPolicy({ limits: appLimits })) } : {}),
  });
  const run = async (
    request: RoutingRequest = makeRequest(),
    signal = new AbortController().signal,
    trail?: DispatchTrail,
  ) => {
    await depths.refresh();
    return dispatch(request, send, signal, trail);
  };
  /** The registry's next snapshot (a poll came in). */
  const nextSnapshot = (next: readonly NodeRecord[]) => {
    snapshot = snapshotOf(next);
  };
  return { run, queues, affinity, latency, rates, calls, cancelled, signals, timers, held, ejection, nextSnapshot };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('createDispatcher: priorities and applications (issue 43)', () => {
  it('refuses an application over its limit with 429 before it queues, and counts it out when its answer ends', async () => {
    const { run, queues } = setup({ records: [hot('a', { numParallel: 4 })], appLimits: ['tag:nightly=1'] });
    const nightly = makeRequest({ claim: { priority: 'low', app: 'tag:nightly' } });

    const first = await run(nightly);
    const refused = await run(nightly).catch((error: unknown) => error);
    const other = await run(makeRequest({ claim: { priority: 'normal', app: 'tag:chat' } }));
    first.slot.release();
    const again = await run(nightly);

    expect(refused).toMatchObject({ status: 429, code: 'app_limit_reached', retryAfterSeconds: 1 });
    expect(other.decision.nodeId).toBe('a');
    expect(again.decision.nodeId).toBe('a');
    expect(queues.entries()[0]).toMatchObject({ pending: 0, rejected: 0 });
  });

  it('counts an application out when its dispatch fails', async () => {
    const { run } = setup({ records: [hot('a')], behaviour: { a: 'refused' }, maxRetries: 0, appLimits: ['*=1'] });
    const request = makeRequest({ claim: { priority: 'normal', app: 'tag:chat' } });

    const first = await run(request).catch((error: unknown) => error);
    const second = await run(request).catch((error: unknown) => error);

    // Both reach the node and fail there: the second is not refused by the limit the first held.
    expect(first).toMatchObject({ status: 503, code: expect.not.stringMatching('app_limit') });
    expect(second).toMatchObject({ status: 503, code: expect.not.stringMatching('app_limit') });
  });

  it('says in the decision how long the request waited in the queue, and nothing when it did not wait', async () => {
    const { run, timers } = setup({ records: [hot('a', { numParallel: 1 })] });
    const holder = await run();
    const waiting = run(makeRequest({ claim: { priority: 'high', app: 'tag:agent' } }));
    await settle();
    timers.advance(1500);
    holder.slot.release();
    const served = await waiting;

    expect(holder.decision.queueWaitMs).toBeUndefined();
    expect(served.decision.queueWaitMs).toBe(1500);
  });

  it('teaches the scorer how long a place in line lasted there, which the next newcomer is charged by', async () => {
    const { run, timers, latency } = setup({ records: [hot('a', { numParallel: 1 })] });
    const holder = await run();
    const second = run();
    await settle();
    const third = run();
    await settle();
    timers.advance(2000);
    holder.slot.release();
    const served = await second;
    // Second in line behind one running request: 2,000 ms for one place.
    expect(latency.durationWindow('a', MODEL)?.waitPerPlaceMs).toBe(2000);
    served.slot.release();
    const last = await third;
    // The third waited 2,000 ms (+40 ms of the second's send) for two places.
    expect(latency.durationWindow('a', MODEL)?.waitPerPlaceMs).toBeCloseTo(2000 + 0.3 * (2040 / 2 - 2000), 6);
    const newcomer = run();
    await settle();
    const decision = await Promise.race([newcomer.then((result) => result.decision), settle().then(() => undefined)]);
    expect(decision).toBeUndefined();
    last.slot.release();
    const result = await newcomer;
    // It was ranked with one request ahead: its wait, a place at the smoothed figure.
    expect(result.decision.breakdown.expected_wait.points).toBeLessThan(-20);
    result.slot.release();
  });
});

describe('createDispatcher: strategies and what it learns (issue 41)', () => {
  it("learns the node's rates from what a completed request reported, and prefers the faster node", async () => {
    const { run, rates, calls } = setup({ records: [hot('a'), hot('b')] });
    const request = makeRequest({ promptTokens: 4000 });
    const first = await run(request);
    const slow = first.attempt.node.id;
    first.slot.release('completed', { promptTokens: 4000, promptEvalMs: 8000, completionTokens: 50, evalMs: 1000 });
    expect(rates.ratesOf(slow, MODEL)?.prefillTps).toBe(500);
    // The twin, not yet observed, is expected to run as slow against its prior as the first did.
    const second = await run({ ...request, promptTokens: 4000 });
    const fast = second.attempt.node.id === slow ? 'b' : second.attempt.node.id;
    second.slot.release('failed', { promptTokens: 4000, promptEvalMs: 1, completionTokens: 50, evalMs: 1 });
    expect(rates.ratesOf(fast, MODEL)).toBeUndefined();
    rates.observe(fast, MODEL, { promptTokens: 4000, promptEvalMs: 2000 });
    const third = await run(request);
    // 4,000 tokens at 500/s is 8 s on the first; 2 s on the other.
    expect(third.attempt.node.id).toBe(fast);
    third.slot.release();
    expect(calls).toHaveLength(3);
  });

  it('expects a node it has not observed to run against its prior as the observed ones ran against theirs', async () => {
    const { run, rates } = setup({ records: [hot('a'), hot('b')] });
    const request = makeRequest({ promptTokens: 4000 });
    const first = await run(request);
    const seen = first.attempt.node.id;
    const unseen = seen === 'a' ? 'b' : 'a';
    const before = first.decision.breakdown.expected_prefill.points;
    // The node ran four times as fast as its prior said.
    const prior = (4000 * 1000) / (-before / 20) / 1000;
    first.slot.release('completed', { promptTokens: 4000, promptEvalMs: (4000 * 1000) / (4 * prior) });
    expect(rates.priorScale?.prefill).toBeCloseTo(4, 6);
    // Hold the observed node, so the next request is ranked on the unseen one too.
    const busy = await run(request);
    expect(busy.attempt.node.id).toBe(seen);
    const next = await run(request);
    expect(next.attempt.node.id).toBe(unseen);
    expect(next.decision.breakdown.expected_prefill.points).toBeCloseTo(before / 4, 6);
    busy.slot.release();
    next.slot.release();
  });

  it('sends a conversation that goes on back where its prompt is cached, over an idle twin', async () => {
    const { run } = setup({ records: [hot('a', { numParallel: 2 }), hot('b', { numParallel: 2 })] });
    const opening = makeRequest({ promptTokens: 3000, conversationKey: 'c1' });
    const first = await run(opening);
    const served = first.attempt.node.id;
    first.slot.release();
    const other = await run(makeRequest({ promptTokens: 10, conversationKey: 'c2' }));
    // The other conversation keeps a slot busy there; the cached 3,000 tokens still win.
    const next = await run(
      makeRequest({ promptTokens: 3200, prefixTokens: 3050, conversationKey: 'c1', continuesConversation: true }),
    );
    expect(next.attempt.node.id).toBe(served);
    // 150 tokens left to evaluate, against 3,200 on the twin (-64 points there).
    expect(next.decision.breakdown.expected_prefill.points).toBeGreaterThan(-5);
    other.slot.release();
    next.slot.release();
  });

  it('sends a prompt away from a node still evaluating a long one, to a busier twin that is only streaming', async () => {
    // b runs two requests another instance sent (answers streaming); a is evaluating one long prompt.
    const { run, held } = setup({
      records: [hot('a', { numParallel: 4 }), hot('b', { numParallel: 4 })],
      behaviour: { a: 'held' },
      elsewhere: { b: 2 },
    });
    const long = run(makeRequest({ promptTokens: 4000 })).catch((error: unknown) => error);
    await settle();
    expect(held.map((send) => send.nodeId)).toEqual(['a']);
    const next = await run(makeRequest({ promptTokens: 2000 }));
    // By depth alone a (1 request) beats b (2); the 4,000 tokens ahead at a decide otherwise.
    expect(next.attempt.node.id).toBe('b');
    next.slot.release();
    held[0]?.fail(new Error('done'));
    await long;
  });

  it("learns from the node's answers that a conversation's turns come back to a prompt it no longer holds", async () => {
    const { run } = setup({ records: [hot('a', { numParallel: 2 }), hot('b', { numParallel: 2 })] });
    const turn = (prefixTokens: number) =>
      makeRequest({ promptTokens: 3000, prefixTokens, conversationKey: 'c1', continuesConversation: prefixTokens > 0 });
    const first = await run(turn(0));
    const node = first.attempt.node.id;
    first.slot.release('completed', { promptTokens: 3000, promptEvalMs: 1000 });
    const affinityOf = async () => {
      const next = await run(turn(2500));
      expect(next.attempt.node.id).toBe(node);
      // The node evaluated the whole prompt again: nothing was held.
      next.slot.release('completed', { promptTokens: 3000, promptEvalMs: 1000 });
      return next.decision.breakdown.session_affinity.points;
    };
    const before = await affinityOf();
    for (let answer = 0; answer < 6; answer += 1) await affinityOf();
    const after = await affinityOf();
    expect(before).toBe(20);
    // Seven answers against a prior of 1, the fleet's and then the node's: (0 + 2 × 2/9) / (7 + 2).
    expect(after).toBeCloseTo((20 * 2 * (2 / 9)) / 9, 6);
  });

  it('orders candidates by the configured strategy', async () => {
    const { run, calls } = setup({
      records: [hot('a'), agentNode({ id: 'b' }), hot('c')],
      strategy: STRATEGIES['round-robin'],
    });
    for (let turn = 0; turn < 3; turn += 1) (await run()).slot.release();
    // Round robin sends to the cold node in its turn, which the score never would.
    expect(calls).toEqual([`a/${MODEL}`, `b/${MODEL}`, `c/${MODEL}`]);
  });
});

describe('createDispatcher', () => {
  it('says how long the request waited for the fleet read, added to what its route waited', async () => {
    const atHand = setup({ records: [hot('a')] });
    const thawed = setup({ records: [hot('a')], snapshotReadMs: 4 });
    const trail: DispatchTrail = { failedAttempts: [], tableWaitMs: 2 };

    const fresh = await atHand.run();
    const waited = await thawed.run(makeRequest(), undefined, trail);

    expect(fresh.decision.tableWaitMs).toBeUndefined();
    expect(waited.decision.tableWaitMs).toBe(6);
    expect(trail.tableWaitMs).toBe(6);
    fresh.slot.release();
    waited.slot.release();
  });

  it('sends to the best node and holds its slot until the caller releases it', async () => {
    const { run, queues, latency, calls, timers } = setup({ records: [agentNode({ id: 'cold' }), hot('hot')] });
    const result = await run();
    expect(calls).toEqual([`hot/${MODEL}`]);
    expect(result.reply.status).toBe(200);
    expect(result.attempt.node.id).toBe('hot');
    expect(result.decision).toEqual({
      nodeId: 'hot',
      score: expect.any(Number),
      breakdown: expect.objectContaining({ thermal: { points: 50, reason: 'model is loaded' } }),
      retries: 0,
      requestedModel: MODEL,
      servedModel: MODEL,
    });
    expect(queues.depth('hot', MODEL)).toBe(1);
    expect(latency.p75FirstByteMs('hot', MODEL)).toBe(40);
    timers.advance(2000);
    result.slot.release();
    result.slot.release();
    expect(queues.depth('hot', MODEL)).toBe(0);
    expect(latency.p75DurationMs('hot', MODEL)).toBe(2040);
  });

  it('scores a node that other instances keep busy as busy, and sends elsewhere', async () => {
    const { run, calls } = setup({ records: [hot('a'), hot('b')], elsewhere: { a: 3 } });
    const result = await run();
    expect(calls).toEqual([`b/${MODEL}`]);
    expect(result.decision.nodeId).toBe('b');
  });

  it('reports the winner score', async () => {
    const { run } = setup({ records: [hot('a')] });
    const { decision } = await run();
    const sum = Object.values(decision.breakdown).reduce((total, signal) => total + signal.points, 0);
    expect(decision.score).toBeCloseTo(sum, 10);
  });

  it('records no duration for a stream that failed or was cancelled', async () => {
    const { run, latency, queues } = setup({ records: [hot('a')] });
    (await run()).slot.release('failed');
    (await run()).slot.release('cancelled');
    expect(latency.p75DurationMs('a', MODEL)).toBeUndefined();
    expect(queues.entries()[0]).toMatchObject({ failed: 1, cancelled: 1, inFlight: 0 });
  });

  it.each([
    ['a refused connection', 'refused'],
    ['a first-byte time-out', 'timeout'],
    ['a 500', 500],
    ['a 503', 503],
  ] as const)('retries on another node after %s', async (_, behaviour) => {
    const { run, calls, queues } = setup({ records: [hot('a'), hot('b')], behaviour: { a: behaviour } });
    const result = await run();
    expect(calls).toEqual([`a/${MODEL}`, `b/${MODEL}`]);
    expect(result.decision).toMatchObject({ nodeId: 'b', retries: 1 });
    expect(result.failedAttempts.map((failure) => failure.nodeId)).toEqual(['a']);
    expect(queues.depth('a', MODEL)).toBe(0);
    expect(queues.entries().find((entry) => entry.nodeId === 'a')).toMatchObject({ failed: 1 });
  });

  it('closes the body of a 5xx it moves on from', async () => {
    const { run, cancelled } = setup({ records: [hot('a'), hot('b')], behaviour: { a: 502 } });
    await run();
    expect(cancelled).toEqual(['a']);
  });

  it.each([400, 404, 413])('never retries a %i: it goes back to the caller as is', async (status) => {
    const { run, calls, affinity } = setup({ records: [hot('a'), hot('b')], behaviour: { a: status } });
    const result = await run(makeRequest({ conversationKey: 'session:x' }));
    expect(calls).toEqual([`a/${MODEL}`]);
    expect(result.reply.status).toBe(status);
    expect(result.decision.retries).toBe(0);
    expect(affinity.pinned('session:x')).toBeUndefined();
  });

  it('gives up with 503 after maxRetries retries, naming each node and what failed in words, retryable', async () => {
    const records = ['a', 'b', 'c', 'd'].map((id) => hot(id));
    const behaviour = { a: 'refused', b: 500, c: 'timeout', d: 'refused' } as const;
    const { run, calls, queues } = setup({ records, behaviour, maxRetries: 2 });
    const error = await run().catch((caught: unknown) => caught);
    expect(calls).toEqual([`a/${MODEL}`, `b/${MODEL}`, `c/${MODEL}`]);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, retryable: true, retryAfterSeconds: 1, code: 'no_node_available' });
    expect((error as Error).message).toBe(
      "no node can take model 'llama3.2:3b' now: a: refused the connection; b: failed (HTTP 500); " +
        'c: did not answer within 5 min',
    );
    // The URLs and codes are the operator's: in the detail for the log, never in the message.
    expect((error as ServiceUnavailableError).detail).toContain(
      'a: http://10.0.0.5:11434/api/chat: connect ECONNREFUSED',
    );
    expect((error as ServiceUnavailableError).detail).toContain('UND_ERR_HEADERS_TIMEOUT');
    expect(queues.entries().every((entry) => entry.inFlight === 0 && entry.pending === 0)).toBe(true);
  });

  it('makes one attempt when maxRetries is 0', async () => {
    const { run, calls } = setup({ records: [hot('a'), hot('b')], behaviour: { a: 'refused' }, maxRetries: 0 });
    await expect(run()).rejects.toBeInstanceOf(ServiceUnavailableError);
    expect(calls).toEqual([`a/${MODEL}`]);
  });

  it('falls back to the first fallback model some node has, and reports it', async () => {
    const qwen = agentNode({ id: 'q', models: [makeNodeModel({ name: 'qwen3:8b' })] });
    const { run, calls } = setup({ records: [qwen, hot('a')] });
    const result = await run(makeRequest({ model: 'missing:1b', fallbackModels: ['qwen3:8b', MODEL] }));
    expect(calls).toEqual(['q/qwen3:8b']);
    expect(result.decision).toMatchObject({
      fallbackModel: 'qwen3:8b',
      requestedModel: 'missing:1b',
      servedModel: 'qwen3:8b',
      retries: 0,
    });
  });

  it('falls back when every node of the primary model fails, not trying a dead node twice', async () => {
    const both = hot('a', { models: [makeNodeModel(), makeNodeModel({ name: 'qwen3:8b' })] });
    const qwen = agentNode({ id: 'q', models: [makeNodeModel({ name: 'qwen3:8b' })] });
    const { run, calls } = setup({ records: [both, qwen], behaviour: { a: 'refused' } });
    const result = await run(makeRequest({ fallbackModels: ['qwen3:8b'] }));
    expect(calls).toEqual([`a/${MODEL}`, 'q/qwen3:8b']);
    expect(result.decision).toMatchObject({ nodeId: 'q', fallbackModel: 'qwen3:8b', retries: 1 });
  });

  it('answers 404 naming every model tried when no node has any of them', async () => {
    const { run, calls } = setup({ records: [hot('a')] });
    const error = await run(makeRequest({ model: 'x:1b', fallbackModels: ['y:2b'] })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'model_not_found' });
    expect((error as Error).message).toBe("model 'x:1b', 'y:2b' not found on any node (tried: x:1b, y:2b)");
    expect(calls).toEqual([]);
  });

  it('answers 404 for a single unknown model without a tried list', async () => {
    const { run } = setup({ records: [hot('a')] });
    await expect(run(makeRequest({ model: 'x:1b' }))).rejects.toThrow("model 'x:1b' not found on any node");
  });

  it('answers a retryable 503 when the model is only on offline nodes', async () => {
    const offline = hot('gone', { lastSeenAt: 0 });
    const { run } = setup({ records: [offline] });
    await expect(run()).rejects.toMatchObject({
      status: 503,
      retryable: true,
      message: "model 'llama3.2:3b' is only on nodes that are offline",
    });
  });

  it('moves past a full queue to the next node without counting a retry', async () => {
    const { run, calls, queues } = setup({ records: [hot('a'), hot('b')], queueOptions: { maxPending: 0 } });
    const held = await queues.acquire('a', MODEL, 1);
    const result = await run();
    expect(calls).toEqual([`b/${MODEL}`]);
    expect(result.decision).toMatchObject({ nodeId: 'b', retries: 0 });
    held.release();
  });

  it('answers a retryable 503 with Retry-After when every queue is full', async () => {
    const { run, queues, calls } = setup({ records: [hot('a'), hot('b')], queueOptions: { maxPending: 0 } });
    await queues.acquire('a', MODEL, 1);
    await queues.acquire('b', MODEL, 1);
    await expect(run()).rejects.toMatchObject({ status: 503, retryable: true, retryAfterSeconds: 1 });
    expect(calls).toEqual([]);
  });

  it('answers 400 when the model cannot serve the request as asked (images for a model without vision)', async () => {
    const { run } = setup({ records: [hot('a')] });
    await expect(run(makeRequest({ needsVision: true }))).rejects.toMatchObject({
      status: 400,
      retryable: false,
      param: 'model',
      message: "model 'llama3.2:3b' cannot serve this request: a: model cannot read images",
    });
  });

  it('routes a request with images to a vision model among the fallbacks', async () => {
    const llava = agentNode({
      id: 'v',
      models: [makeNodeModel({ name: 'llava:7b', capabilities: ['completion', 'vision'], described: true })],
    });
    const { run, calls } = setup({ records: [hot('a'), llava] });
    const result = await run(makeRequest({ needsVision: true, fallbackModels: ['llava:7b'] }));
    expect(calls).toEqual(['v/llava:7b']);
    expect(result.decision.fallbackModel).toBe('llava:7b');
  });

  it('waits in the queue for a slot, in order', async () => {
    const { run, queues, calls } = setup({ records: [hot('a')] });
    const held = await queues.acquire('a', MODEL, 1);
    const pending = run();
    await settle();
    expect(calls).toEqual([]);
    expect(queues.depth('a', MODEL)).toBe(2);
    held.release();
    const result = await pending;
    expect(calls).toEqual([`a/${MODEL}`]);
    result.slot.release();
  });

  it('frees everything when the client goes away while queued', async () => {
    const { run, queues, calls } = setup({ records: [hot('a')] });
    const held = await queues.acquire('a', MODEL, 1);
    const controller = new AbortController();
    const pending = run(makeRequest(), controller.signal);
    await settle();
    expect(queues.depth('a', MODEL)).toBe(2);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(RequestAbortedError);
    expect(queues.depth('a', MODEL)).toBe(1);
    expect(calls).toEqual([]);
    held.release();
    expect(queues.depth('a', MODEL)).toBe(0);
  });

  it('aborts the node request and frees the slot when the client goes away before the first byte', async () => {
    const { run, queues, signals, calls } = setup({ records: [hot('a'), hot('b')], behaviour: { a: 'hang' } });
    const controller = new AbortController();
    const pending = run(makeRequest(), controller.signal);
    await settle();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ status: 499 });
    expect(signals[0]?.aborted).toBe(true);
    expect(calls).toEqual([`a/${MODEL}`]);
    expect(queues.entries()).toEqual([expect.objectContaining({ nodeId: 'a', inFlight: 0, cancelled: 1 })]);
  });

  it('refuses at once a request whose client is already gone', async () => {
    const { run, calls } = setup({ records: [hot('a')] });
    const controller = new AbortController();
    controller.abort();
    await expect(run(makeRequest(), controller.signal)).rejects.toBeInstanceOf(RequestAbortedError);
    expect(calls).toEqual([]);
  });

  it('reports affinity new, pins the conversation, then matched on the next turn', async () => {
    const { run, affinity } = setup({ records: [hot('a'), hot('b')] });
    const first = await run(makeRequest({ conversationKey: 'session:chat-1' }));
    expect(first.decision.affinity).toBe('new');
    expect(affinity.pinned('session:chat-1')).toBe('a');
    first.slot.release();
    // b is now as good as a, but the conversation goes back to a.
    const second = await run(makeRequest({ conversationKey: 'session:chat-1' }));
    expect(second.decision).toMatchObject({ nodeId: 'a', affinity: 'matched' });
    expect(second.decision.breakdown.session_affinity.points).toBe(20);
  });

  it('reports affinity new when the pinned node was not the one that served', async () => {
    const { run, affinity } = setup({ records: [hot('a'), hot('b')], behaviour: { b: 'refused' } });
    affinity.pin('session:chat-2', 'b');
    const result = await run(makeRequest({ conversationKey: 'session:chat-2' }));
    expect(result.decision).toMatchObject({ nodeId: 'a', affinity: 'new', retries: 1 });
    expect(affinity.pinned('session:chat-2')).toBe('a');
  });

  it('leaves affinity out when the request has no conversation', async () => {
    const { run } = setup({ records: [hot('a')] });
    expect((await run()).decision).not.toHaveProperty('affinity');
  });
});

describe('createDispatcher with outlier ejection', () => {
  it('eliminates a node ejected by a refused connect, names it in the decision, and sends to the peer', async () => {
    const { run, calls, timers } = setup({
      records: [hot('a'), hot('b')],
      behaviour: { a: 'refused' },
      ejecting: true,
    });
    (await run()).slot.release();
    timers.advance(5000);

    const second = await run();

    expect(calls).toEqual([`a/${MODEL}`, `b/${MODEL}`, `b/${MODEL}`]);
    expect(second.decision).toMatchObject({ nodeId: 'b', retries: 0 });
    expect(second.decision.skipped).toEqual([
      'a: node is ejected for 25 s more (could not connect: refused the connection)',
    ]);
  });

  it('says in the retried attempt that its failure ejected the node', async () => {
    const { run } = setup({ records: [hot('a'), hot('b')], behaviour: { a: 'refused' }, ejecting: true });

    const { failedAttempts } = await run();

    expect(failedAttempts[0]?.detail).toBe('refused the connection; node ejected for 30 s');
  });

  it('ejects after three 5xx in a row and tries the node again once the ejection ends', async () => {
    const { run, calls, timers } = setup({ records: [hot('a'), hot('b')], behaviour: { a: 500 }, ejecting: true });
    for (let round = 0; round < 3; round += 1) (await run()).slot.release();
    const whileEjected = calls.length;
    (await run()).slot.release();
    timers.advance(30_000);
    (await run()).slot.release();

    expect(calls.slice(0, whileEjected)).toEqual([
      `a/${MODEL}`,
      `b/${MODEL}`,
      `a/${MODEL}`,
      `b/${MODEL}`,
      `a/${MODEL}`,
      `b/${MODEL}`,
    ]);
    expect(calls.slice(whileEjected)).toEqual([`b/${MODEL}`, `a/${MODEL}`, `b/${MODEL}`]);
  });

  it('ejects a node whose replies break off mid-way three times in a row: its first bytes do not clear the count', async () => {
    const { run, ejection, timers } = setup({ records: [hot('a')], ejecting: true });

    for (let round = 0; round < 3; round += 1) (await run()).slot.release('broke-off');

    expect(ejection?.ejected({ nodeId: 'a', backend: 'ollama' }, timers.clock())).toMatchObject({
      cause: 'transport',
      reason: expect.stringContaining('3 failures in a row, the last: broke off its reply'),
    });
  });

  it('starts the count again after a reply that ended whole, and counts no client that left', async () => {
    const { run, ejection, timers } = setup({ records: [hot('a')], ejecting: true });

    for (const outcome of ['broke-off', 'broke-off', 'completed', 'broke-off', 'cancelled', 'broke-off'] as const) {
      (await run()).slot.release(outcome);
    }

    expect(ejection?.ejected({ nodeId: 'a', backend: 'ollama' }, timers.clock())).toBeUndefined();
    expect(ejection?.states(timers.clock())).toEqual([
      expect.objectContaining({ nodeId: 'a', consecutiveFailures: 2 }),
    ]);
  });

  it('tries an ejected node all the same when every candidate is ejected, rather than turn the model away', async () => {
    const { run, calls } = setup({ records: [hot('a')], behaviour: { a: 'refused' }, ejecting: true });
    await run().catch(() => undefined);

    const error = await run().catch((caught: unknown) => caught);

    expect(calls).toEqual([`a/${MODEL}`, `a/${MODEL}`]);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ status: 503, retryable: true });
    expect((error as Error).message).toContain('a: refused the connection');
  });

  it('skips an ejected node while a peer can serve', async () => {
    const { run, calls } = setup({
      records: [hot('a'), agentNode({ id: 'b', numParallel: 4 })],
      behaviour: { a: 'refused' },
      ejecting: true,
    });
    await run();

    const second = await run();

    expect(calls).toEqual([`a/${MODEL}`, `b/${MODEL}`, `b/${MODEL}`]);
    expect(second.decision.nodeId).toBe('b');
  });

  it('moves the requests queued behind a node to a peer the moment the node is ejected', async () => {
    const roomy = agentNode({ id: 'b', numParallel: 4 });
    const { run, calls, held, queues } = setup({
      records: [hot('a'), roomy],
      behaviour: { a: 'held' },
      ejecting: true,
    });
    const first = run();
    await settle();
    const queued = [run(), run()];
    await settle();
    expect(queues.depth('a', MODEL)).toBe(3);

    held[0]?.fail(undiciError('Headers Timeout Error', 'UND_ERR_HEADERS_TIMEOUT'));
    const results = await Promise.all([first, ...queued]);

    expect(calls).toEqual([`a/${MODEL}`, `b/${MODEL}`, `b/${MODEL}`, `b/${MODEL}`]);
    expect(results.map((result) => result.decision.nodeId)).toEqual(['b', 'b', 'b']);
    expect(results.map((result) => result.decision.retries)).toEqual([1, 0, 0]);
    expect(results[1]?.decision.skipped).toEqual([
      expect.stringMatching(/^a: node 'a' was ejected for 30 s \(no first byte in time: did not answer in time\)/),
    ]);
    expect(queues.depth('a', MODEL)).toBe(0);
    for (const result of results) result.slot.release();
  });

  it('ejects a node whose latest poll failed and moves the requests queued on it to the peer', async () => {
    const roomy = agentNode({ id: 'b', numParallel: 4 });
    const { run, calls, queues, nextSnapshot } = setup({ records: [hot('a'), roomy], ejecting: true });
    const busy = await queues.acquire('a', MODEL, 1);
    const queued = run();
    await settle();
    expect(queues.depth('a', MODEL)).toBe(2);

    nextSnapshot([
      hot('a', {
        lastErrorAt: T0 - 500,
        lastError: 'http://10.0.0.1:11434/api/ps: UND_ERR_HEADERS_TIMEOUT: Headers Timeout Error',
        lastErrorWords: 'did not answer within 5 s',
      }),
      roomy,
    ]);
    const next = await run();
    const moved = await queued;

    expect(calls).toEqual([`b/${MODEL}`, `b/${MODEL}`]);
    expect(moved.decision.nodeId).toBe('b');
    expect(moved.decision.skipped).toEqual([
      "a: node 'a' was ejected for 30 s (its last poll failed: did not answer within 5 s) while waiting to run 'llama3.2:3b'",
    ]);
    expect(next.decision.skipped).toEqual([
      'a: node is ejected for 30 s more (its last poll failed: did not answer within 5 s)',
    ]);
    busy.release();
    moved.slot.release();
    next.slot.release();
  });
});
