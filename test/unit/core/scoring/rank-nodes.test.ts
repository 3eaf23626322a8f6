import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import { concurrencyLimit } from '../../../../lib/core/scoring/concurrency-limit';
import { eliminate } from '../../../../lib/core/scoring/eliminate';
import { priorLoadMs, priorPrefillTps } from '../../../../lib/core/scoring/observed-rates';
import { type RankContext, rankNodes } from '../../../../lib/core/scoring/rank-nodes';
import { observedResidentBytes, residentBytes } from '../../../../lib/core/scoring/resident-size';
import { contextNeedOf, type RoutingRequest } from '../../../../lib/core/scoring/routing-request';
import { scoreCandidate } from '../../../../lib/core/scoring/score';
import { prefillMs, prefillSlowdown, slotWaitMs } from '../../../../lib/core/scoring/signals';
import { createLatencyStats } from '../../../../lib/services/dispatch/latency-stats';
import { createPrefillLedger } from '../../../../lib/services/dispatch/prefill-ledger';
import {
  agentNode,
  depthsOf,
  GIB,
  idle,
  makeLoadedModel,
  makeNodeModel,
  makeNodeRecord,
  makeRequest,
  snapshotOf,
  T0,
} from '../../../helpers/factories';

const context: RankContext = { now: T0, queues: idle };
const hot = (overrides: Partial<NodeRecord> = {}) => agentNode({ loaded: [makeLoadedModel()], ...overrides });
const ids = (ranking: ReturnType<typeof rankNodes>) => ranking.ranked.map((candidate) => candidate.node.id);

describe('rankNodes', () => {
  it('ranks the node with the model hot above the ones that would have to load it', () => {
    const snapshot = snapshotOf([agentNode({ id: 'cold' }), hot({ id: 'hot' })]);
    const ranking = rankNodes(snapshot, makeRequest(), context);
    expect(ids(ranking)).toEqual(['hot', 'cold']);
    expect(ranking.ranked[0]?.breakdown.thermal).toEqual({ points: 50, reason: 'model is loaded' });
    expect(ranking.ranked[1]?.breakdown.thermal).toEqual({ points: 10, reason: 'model is on disk' });
  });

  it('explains each candidate: the score is the sum of its breakdown', () => {
    const snapshot = snapshotOf([hot({ id: 'a' }), agentNode({ id: 'b' })]);
    for (const candidate of rankNodes(snapshot, makeRequest({ promptTokens: 500 }), context).ranked) {
      const sum = Object.values(candidate.breakdown).reduce((total, signal) => total + signal.points, 0);
      expect(candidate.score).toBeCloseTo(sum, 10);
      expect(candidate.depth).toBe(0);
      expect(candidate.limit).toBe(1);
      expect(candidate.model).toBe('llama3.2:3b');
    }
  });

  it('scores only the nodes holding the model', () => {
    const other = agentNode({ id: 'other', models: [makeNodeModel({ name: 'qwen3:8b' })] });
    const ranking = rankNodes(snapshotOf([other, agentNode({ id: 'holder' })]), makeRequest(), context);
    expect(ids(ranking)).toEqual(['holder']);
    expect(ranking.eliminated).toEqual([]);
    expect(ranking.eligible).toBe(1);
  });

  it('returns nothing for a model no node holds', () => {
    const ranking = rankNodes(snapshotOf([agentNode()]), makeRequest({ model: 'nope:1b' }), context);
    expect(ranking).toEqual({ model: 'nope:1b', ranked: [], eliminated: [], eligible: 0 });
  });

  it('lists each eliminated node with its reason', () => {
    const snapshot = snapshotOf([
      agentNode({ id: 'critical', memory: { totalGb: 64, usedGb: 63, availableGb: 1, pressure: 'critical' } }),
      agentNode({ id: 'small', memory: { totalGb: 8, usedGb: 7, availableGb: 1, pressure: 'normal' } }),
      agentNode({ id: 'fine' }),
    ]);
    const ranking = rankNodes(snapshot, makeRequest(), context);
    expect(ids(ranking)).toEqual(['fine']);
    expect(ranking.eliminated).toEqual([
      { nodeId: 'critical', reason: 'memory-critical' },
      { nodeId: 'small', reason: 'does-not-fit' },
    ]);
  });

  it('eliminates an ejected node as ejected, saying why and for how long, and leaves the memoised profile alone', () => {
    const snapshot = snapshotOf([hot({ id: 'a' }), agentNode({ id: 'b' })]);
    const ejected = new Map([
      [
        'a',
        {
          nodeId: 'a',
          backend: 'ollama' as const,
          at: T0 - 17_500,
          until: T0 + 12_500,
          reason: 'could not connect: refused',
          level: 1,
          cause: 'connect' as const,
        },
      ],
    ]);

    const ranking = rankNodes(snapshot, makeRequest(), { ...context, ejected });
    const after = rankNodes(snapshot, makeRequest(), context);

    expect(ids(ranking)).toEqual(['b']);
    expect(ranking.eligible).toBe(1);
    expect(ranking.eliminated).toEqual([
      {
        nodeId: 'a',
        reason: 'ejected',
        detail: 'node is ejected for 13 s more (could not connect: refused)',
        retryAfterSeconds: 13,
      },
    ]);
    expect(ids(after)).toEqual(['a', 'b']);
  });

  it('judges fit by the size the model really takes where it is loaded elsewhere', () => {
    // 3 GiB free: the 2 GB on disk would fit, the 4 GiB it occupies loaded does not.
    const tight = agentNode({ id: 'tight', memory: { totalGb: 8, usedGb: 5, availableGb: 3, pressure: 'normal' } });
    const snapshot = snapshotOf([tight, hot({ id: 'loaded', loaded: [makeLoadedModel({ size: 4 * GIB })] })]);
    expect(rankNodes(snapshot, makeRequest(), context).eliminated).toEqual([
      { nodeId: 'tight', reason: 'does-not-fit' },
    ]);
  });

  it('sends a request with images only to vision-capable placements', () => {
    const vision = makeNodeModel({ capabilities: ['completion', 'vision'], described: true });
    const snapshot = snapshotOf([hot({ id: 'blind' }), agentNode({ id: 'seeing', models: [vision] })]);
    const ranking = rankNodes(snapshot, makeRequest({ needsVision: true }), context);
    expect(ids(ranking)).toEqual(['seeing']);
    expect(ranking.eliminated).toEqual([{ nodeId: 'blind', reason: 'no-vision' }]);
  });

  it('breaks a tie on score by the lower queue depth', () => {
    // a: a small model on a slower node (role +12) but one request running on two slots (−3); b: role +9
    // and idle. Both total the same (no prompt estimate: nothing to evaluate, no context to fit).
    const a = hot({ id: 'a', numParallel: 2, hardware: { memoryBandwidthGbps: 200 } });
    const b = hot({ id: 'b', hardware: { memoryBandwidthGbps: 400 } });
    const ranking = rankNodes(snapshotOf([a, b]), makeRequest(), {
      now: T0,
      queues: depthsOf({ 'a:llama3.2:3b': 1 }),
    });
    expect(ranking.ranked[0]?.score).toBe(ranking.ranked[1]?.score);
    expect(ids(ranking)).toEqual(['b', 'a']);
  });

  it('breaks a tie on score and depth by more free memory, then by node id', () => {
    const memory = (availableGb: number) => ({
      totalGb: 64,
      usedGb: 64 - availableGb,
      availableGb,
      pressure: 'normal' as const,
    });
    const records = [
      hot({ id: 'c', memory: memory(20) }),
      hot({ id: 'b', memory: memory(30) }),
      hot({ id: 'a', memory: memory(20) }),
    ];
    expect(ids(rankNodes(snapshotOf(records), makeRequest(), context))).toEqual(['b', 'a', 'c']);
    expect(ids(rankNodes(snapshotOf([...records].reverse()), makeRequest(), context))).toEqual(['b', 'a', 'c']);
  });

  it('ranks polled nodes without memory reports after the ones that have room, ids in order', () => {
    const snapshot = snapshotOf([makeNodeRecord({ id: 'p2' }), makeNodeRecord({ id: 'p1' })]);
    expect(ids(rankNodes(snapshot, makeRequest(), context))).toEqual(['p1', 'p2']);
  });

  it('penalises a busy node with its depth and expected wait', () => {
    const latency = createLatencyStats();
    latency.recordDuration('busy', 'llama3.2:3b', 4000);
    const snapshot = snapshotOf([hot({ id: 'busy' }), hot({ id: 'quiet' })]);
    const ranking = rankNodes(snapshot, makeRequest(), {
      now: T0,
      queues: depthsOf({ 'busy:llama3.2:3b': 2 }),
      latency,
    });
    expect(ids(ranking)).toEqual(['quiet', 'busy']);
    const busy = ranking.ranked[1];
    expect(busy?.depth).toBe(2);
    expect(busy?.breakdown.queue_depth.points).toBe(-12);
    expect(busy?.breakdown.expected_wait.points).toBe(-160);
  });

  it('reads the wait from the observations as they are now, ranking after ranking of one snapshot', () => {
    const snapshot = snapshotOf([hot({ id: 'busy' }), hot({ id: 'quiet' })]);
    const queues = depthsOf({ 'busy:llama3.2:3b': 2 });
    const first = createLatencyStats();
    const waitOf = (latency: ReturnType<typeof createLatencyStats>) => {
      const busy = rankNodes(snapshot, makeRequest(), { now: T0, queues, latency }).ranked.find(
        (candidate) => candidate.node.id === 'busy',
      );
      const sum = Object.values(busy?.breakdown ?? {}).reduce((total, signal) => total + signal.points, 0);
      expect(busy?.score).toBeCloseTo(sum, 10);
      return busy?.breakdown.expected_wait.points;
    };

    const unobserved = waitOf(first);
    first.recordDuration('busy', 'llama3.2:3b', 4000);
    expect(waitOf(first)).toBe(-160);
    for (let sample = 0; sample < 10; sample += 1) first.recordDuration('busy', 'llama3.2:3b', 40_000);
    const slower = waitOf(first);
    const other = createLatencyStats();
    other.recordDuration('busy', 'llama3.2:3b', 4000);

    expect(unobserved).not.toBe(-160);
    expect(slower).toBeLessThan(-160);
    expect(waitOf(other)).toBe(-160);
    expect(waitOf(first)).toBe(slower);
  });

  it("counts another model's requests on a node as a runner taking turns on its GPU", () => {
    const snapshot = snapshotOf([hot({ id: 'shared' }), hot({ id: 'alone' })]);
    const busy = { 'shared:qwen3:8b': 2 };
    const queues = {
      ...depthsOf(busy),
      forEachBusyModel(visit: (model: string, nodeId: string, depth: number) => void) {
        visit('qwen3:8b', 'shared', 2);
      },
    };
    const ranking = rankNodes(snapshot, makeRequest({ promptTokens: 2000 }), { now: T0, queues });
    expect(ids(ranking)).toEqual(['alone', 'shared']);
    const [alone, shared] = ranking.ranked;
    expect(shared?.slowdown).toBe(1);
    expect(shared?.breakdown.expected_prefill.points).toBeCloseTo(
      2 * (alone?.breakdown.expected_prefill.points ?? 0),
      10,
    );
    expect(shared?.breakdown.queue_depth.points).toBe(0);
  });

  it('slows a prompt by the prompt tokens still ahead of it on a node, not by how many requests run there', () => {
    const snapshot = snapshotOf([hot({ id: 'streaming' }), hot({ id: 'prefilling' })]);
    // Both run two requests; only one node is still evaluating prompts (3,000 tokens left of two).
    const queues = depthsOf({ 'streaming:llama3.2:3b': 2, 'prefilling:llama3.2:3b': 2 });
    const ledger = createPrefillLedger();
    ledger.begin('prefilling', 'llama3.2:3b', 1500, T0);
    ledger.begin('prefilling', 'llama3.2:3b', 1500, T0);
    const request = makeRequest({ promptTokens: 1000 });
    const ranking = rankNodes(snapshot, request, { now: T0, queues, prefill: ledger });
    expect(ids(ranking)).toEqual(['streaming', 'prefilling']);
    const [streaming, prefilling] = ranking.ranked;
    expect(streaming?.slowdown).toBe(0);
    // A newcomer of 1,000 shares the node with min(1,500, 1,000) of each: twice its own again.
    expect(prefilling?.slowdown).toBe(2);
    expect(prefilling?.evaluates).toBe(1000);
    expect(prefilling?.ttft.prefillMs).toBeCloseTo(3 * (streaming?.ttft.prefillMs ?? 0), 6);
    // Without the ledger, the depth alone guesses the same slowdown for both.
    const guessed = rankNodes(snapshot, request, { now: T0, queues });
    expect(guessed.ranked[0]?.slowdown).toBe(guessed.ranked[1]?.slowdown);
  });

  it('divides depth by the concurrency limit, overridden per node when configured', () => {
    const snapshot = snapshotOf([hot({ id: 'busy', numParallel: 4 })]);
    const queues = depthsOf({ 'busy:llama3.2:3b': 2 });
    expect(rankNodes(snapshot, makeRequest(), { now: T0, queues }).ranked[0]?.breakdown.queue_depth.points).toBe(-3);
    const overridden = rankNodes(snapshot, makeRequest(), {
      now: T0,
      queues,
      concurrencyOverrides: new Map([['busy', 1]]),
    });
    expect(overridden.ranked[0]?.limit).toBe(1);
    expect(overridden.ranked[0]?.breakdown.queue_depth.points).toBe(-12);
  });

  it('forgets one request load before the next ranking of the same snapshot', () => {
    const snapshot = snapshotOf([hot({ id: 'a' }), hot({ id: 'b' })]);
    const busy = rankNodes(snapshot, makeRequest(), {
      now: T0,
      queues: depthsOf({ 'a:llama3.2:3b': 3 }),
      pinnedNodeId: 'b',
    });
    expect(ids(busy)).toEqual(['b', 'a']);
    const after = rankNodes(snapshot, makeRequest(), context);
    expect(ids(after)).toEqual(['a', 'b']);
    expect(after.ranked.map((candidate) => candidate.score)).toEqual([after.ranked[0]?.score, after.ranked[0]?.score]);
  });

  it('gives the pinned node its conversation bonus', () => {
    const snapshot = snapshotOf([hot({ id: 'a' }), hot({ id: 'b' })]);
    const ranking = rankNodes(snapshot, makeRequest({ conversationKey: 'session:1' }), {
      now: T0,
      queues: idle,
      pinnedNodeId: 'b',
    });
    expect(ids(ranking)).toEqual(['b', 'a']);
    expect(ranking.ranked[0]?.breakdown.session_affinity).toEqual({ points: 20, reason: 'conversation pinned here' });
    expect(ranking.ranked[1]?.breakdown.session_affinity.points).toBe(0);
  });

  it('scales the pinned node bonus by the chance it still holds the prompt, and keeps it whole when unknown', () => {
    const snapshot = snapshotOf([hot({ id: 'a' }), hot({ id: 'b' })]);
    const request = makeRequest({ conversationKey: 'session:1', prefixTokens: 100 });
    const rank = (chance: number | undefined) =>
      rankNodes(snapshot, request, {
        now: T0,
        queues: idle,
        pinnedNodeId: 'b',
        prefix: { tokens: 100, likelihood: (nodeId) => (nodeId === 'b' ? chance : 0) },
      });
    // Its turns went through another instance: the pin alone speaks.
    expect(
      rank(undefined).ranked.find((candidate) => candidate.node.id === 'b')?.breakdown.session_affinity.points,
    ).toBe(20);
    expect(rank(0.5).ranked.find((candidate) => candidate.node.id === 'b')?.breakdown.session_affinity.points).toBe(10);
    const gone = rank(0);
    expect(gone.ranked.find((candidate) => candidate.node.id === 'b')?.breakdown.session_affinity.points).toBe(0);
    expect(ids(gone)).toEqual(['a', 'b']);
  });

  it('lets a busy pinned node lose to an idle one once its queue outweighs the bonus', () => {
    const snapshot = snapshotOf([hot({ id: 'a' }), hot({ id: 'b' })]);
    const queues = depthsOf({ 'b:llama3.2:3b': 4 });
    const ranking = rankNodes(snapshot, makeRequest(), { now: T0, queues, pinnedNodeId: 'b' });
    expect(ids(ranking)).toEqual(['a', 'b']);
    expect(ranking.ranked[1]?.breakdown.session_affinity.points).toBeCloseTo(20 / 3, 10);
  });

  it('cools a recently unloaded model as time passes on the same snapshot', () => {
    const snapshot = snapshotOf([agentNode({ recentlyUnloaded: { 'llama3.2:3b': T0 - 1000 } })]);
    const warm = rankNodes(snapshot, makeRequest(), context).ranked[0];
    const later = rankNodes(snapshot, makeRequest(), { now: T0 + 1_800_000, queues: idle }).ranked[0];
    expect(warm?.breakdown.thermal.points).toBe(30);
    expect(later?.breakdown.thermal.points).toBe(10);
    expect((warm?.score ?? 0) - (later?.score ?? 0)).toBe(20);
  });

  it('finds `foo` under its `foo:latest` name and names the model as the node does', () => {
    const snapshot = snapshotOf([agentNode({ models: [makeNodeModel({ name: 'mistral:latest' })] })]);
    expect(rankNodes(snapshot, makeRequest({ model: 'mistral' }), context).ranked[0]?.model).toBe('mistral:latest');
  });

  it('ranks a fallback model when asked to', () => {
    const snapshot = snapshotOf([agentNode({ models: [makeNodeModel({ name: 'qwen3:8b' })] })]);
    const ranking = rankNodes(snapshot, makeRequest({ fallbackModels: ['qwen3:8b'] }), context, 'qwen3:8b');
    expect(ranking.model).toBe('qwen3:8b');
    expect(ranking.ranked).toHaveLength(1);
  });

  it('keeps and explains only the best `top`, counting every eligible node', () => {
    const records = Array.from({ length: 30 }, (_, index) => agentNode({ id: `n${String(index).padStart(2, '0')}` }));
    const ranking = rankNodes(snapshotOf(records), makeRequest(), { ...context, top: 3 });
    expect(ids(ranking)).toEqual(['n00', 'n01', 'n02']);
    expect(ranking.eligible).toBe(30);
  });

  it('is the brute-force ranking of every placement by its explained score, cut to `top`', () => {
    const nodeArbitrary = fc.record({
      loaded: fc.boolean(),
      contextLength: fc.constantFrom(2048, 8192, 32_768),
      unloadedAgo: fc.option(fc.integer({ min: 0, max: 3_600_000 }), { nil: undefined }),
      availableGb: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
      pressure: fc.constantFrom('normal' as const, 'warn' as const, 'critical' as const),
      bandwidth: fc.option(fc.constantFrom(100, 400, 800), { nil: undefined }),
      totalGb: fc.constantFrom(16, 64, 192),
      numParallel: fc.integer({ min: 1, max: 4 }),
      depth: fc.integer({ min: 0, max: 6 }),
      p75: fc.option(fc.integer({ min: 100, max: 20_000 }), { nil: undefined }),
    });
    // biome-ignore lint/nursery/noFloatingPromises: fc.assert of a synchronous property returns void, not a promise.
    fc.assert(
      fc.property(
        fc.array(nodeArbitrary, { minLength: 1, maxLength: 12 }),
        fc.option(fc.integer({ min: 1, max: 40_000 }), { nil: undefined }),
        fc.nat(20),
        // Fewer than the nodes as often as not: a full best list, its last falling off and the ones below it.
        fc.integer({ min: 1, max: 14 }),
        (nodes, promptTokens, pin, top) => {
          const records = nodes.map((spec, index) => {
            const fields: Partial<NodeRecord> = {
              id: `n${index}`,
              source: 'agent',
              loaded: spec.loaded ? [makeLoadedModel({ contextLength: spec.contextLength })] : [],
              recentlyUnloaded: spec.unloadedAgo === undefined ? {} : { 'llama3.2:3b': T0 - spec.unloadedAgo },
              hardware: {
                memoryTotalGb: spec.totalGb,
                ...(spec.bandwidth !== undefined ? { memoryBandwidthGbps: spec.bandwidth } : {}),
              },
              numParallel: spec.numParallel,
            };
            if (spec.availableGb === undefined) return makeNodeRecord(fields);
            const memory = { totalGb: spec.totalGb, usedGb: 0, availableGb: spec.availableGb, pressure: spec.pressure };
            return makeNodeRecord({ ...fields, memory });
          });
          const latency = createLatencyStats();
          const depthTable: Record<string, number> = {};
          nodes.forEach((spec, index) => {
            if (spec.p75 !== undefined) latency.recordDuration(`n${index}`, 'llama3.2:3b', spec.p75);
            if (spec.depth > 0) depthTable[`n${index}:llama3.2:3b`] = spec.depth;
          });
          const queues = depthsOf(depthTable);
          const pinnedNodeId = `n${pin}`;
          const request: RoutingRequest = makeRequest(promptTokens === undefined ? {} : { promptTokens });
          const snapshot = snapshotOf(records);
          const ranking = rankNodes(snapshot, request, { now: T0, queues, latency, pinnedNodeId, top });

          const placements = snapshot.placements.get('llama3.2:3b') ?? [];
          const observed = observedResidentBytes(placements);
          const expected = placements
            .filter((placement) => eliminate(placement, request, residentBytes(placement, observed)) === undefined)
            .map((placement) => {
              const node = placement.node;
              const depth = queues.depth(node.id, 'llama3.2:3b');
              const limit = concurrencyLimit(node);
              const p75Ms = latency.p75DurationMs(node.id, 'llama3.2:3b');
              const resident = residentBytes(placement, observed);
              const ttft = {
                waitMs: slotWaitMs(depth, limit, depth >= limit ? p75Ms : undefined),
                loadMs: placement.loaded === undefined ? priorLoadMs(resident) : 0,
                prefillMs: prefillMs(
                  request.promptTokens ?? 0,
                  priorPrefillTps(node.hardware.memoryBandwidthGbps, resident),
                  prefillSlowdown(depth, limit),
                ),
              };
              const { total } = scoreCandidate({
                node,
                placement,
                model: 'llama3.2:3b',
                resident,
                depth,
                limit,
                p75Ms,
                ttft,
                promptTokens: contextNeedOf(request),
                pinned: node.id === pinnedNodeId,
                now: T0,
              });
              return { id: node.id, total, depth, free: node.memory?.availableGb ?? Number.NEGATIVE_INFINITY };
            })
            .sort((a, b) => b.total - a.total || a.depth - b.depth || b.free - a.free || (a.id < b.id ? -1 : 1));
          expect(ranking.ranked.map((candidate) => [candidate.node.id, candidate.score])).toEqual(
            expected.slice(0, top).map((entry) => [entry.id, entry.total]),
          );
          expect(ranking.eligible + ranking.eliminated.length).toBe(placements.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
