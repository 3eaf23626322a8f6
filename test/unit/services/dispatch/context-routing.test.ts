/**
 * Routing by context (issue 20 item 10): among nodes holding the model hot, the one whose loaded context
 * holds the prompt and the answer wins; a prompt far over a model's own maximum eliminates its nodes,
 * fallbacks get their turn, and when no model tried can hold it the client gets the family's context error.
 */
import { describe, expect, it } from '@jest/globals';
import type { RouterError } from '../../../../lib/core/errors';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import { type RankContext, rankNodes } from '../../../../lib/core/scoring/rank-nodes';
import type { RoutingRequest } from '../../../../lib/core/scoring/routing-request';
import { createAffinityTracker } from '../../../../lib/services/dispatch/affinity';
import { createDispatcher } from '../../../../lib/services/dispatch/dispatcher';
import { createLatencyStats } from '../../../../lib/services/dispatch/latency-stats';
import { createQueueManager } from '../../../../lib/services/dispatch/queue-manager';
import type { NodeReply, NodeTransport } from '../../../../lib/services/dispatch/transport';
import { renderError } from '../../../../lib/services/http/render-error';
import {
  agentNode,
  idle,
  makeLoadedModel,
  makeNodeModel,
  makeRequest,
  snapshotOf,
  T0,
} from '../../../helpers/factories';
import { manualTimers } from '../../../helpers/manual-timers';

const context: RankContext = { now: T0, queues: idle };
const loadedAt = (id: string, contextLength: number, overrides: Partial<NodeRecord> = {}) =>
  agentNode({ id, loaded: [makeLoadedModel({ contextLength })], ...overrides });
const ids = (ranking: ReturnType<typeof rankNodes>) => ranking.ranked.map((candidate) => candidate.node.id);

function dispatcherFor(records: readonly NodeRecord[]) {
  const timers = manualTimers();
  const calls: string[] = [];
  const send: NodeTransport = (attempt) => {
    calls.push(`${attempt.node.id}/${attempt.model}`);
    const reply: NodeReply = {
      status: 200,
      headers: {},
      body: (async function* () {
        yield new TextEncoder().encode('{"done":true}\n');
      })(),
      cancel: () => {},
    };
    return Promise.resolve(reply);
  };
  const dispatch = createDispatcher({
    snapshot: () => snapshotOf(records),
    queues: createQueueManager({ schedule: timers.schedule, clock: timers.clock }),
    affinity: createAffinityTracker({ clock: timers.clock }),
    latency: createLatencyStats(),
    maxRetries: 2,
    clock: timers.clock,
  });
  return { calls, run: (request: RoutingRequest) => dispatch(request, send, new AbortController().signal) };
}

async function rejection(promise: Promise<unknown>): Promise<RouterError> {
  return (await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  )) as RouterError;
}

describe('routing by context', () => {
  it('sends a 20k-token prompt to the node that has the model loaded at 32768, not at 4096', () => {
    // The small one is listed first and has more free memory: only the context tells them apart.
    const small = loadedAt('a-small', 4096, {
      memory: { totalGb: 64, usedGb: 8, availableGb: 56, pressure: 'normal' },
    });
    const large = loadedAt('b-large', 32_768);
    const ranking = rankNodes(snapshotOf([small, large]), makeRequest({ promptTokens: 20_000 }), context);
    expect(ids(ranking)).toEqual(['b-large', 'a-small']);
    expect(ranking.ranked[1]?.breakdown.context_fit.points).toBe(-15);
  });

  it('counts the answer budget: a window that holds the prompt but not the answer is not a fit', () => {
    const snapshot = snapshotOf([loadedAt('a-exact', 8192), loadedAt('b-room', 16_384)]);
    const ranking = rankNodes(snapshot, makeRequest({ promptTokens: 7000, answerTokens: 4000 }), context);
    expect(ids(ranking)).toEqual(['b-room', 'a-exact']);
    expect(ranking.ranked[1]?.breakdown.context_fit.points).toBe(-15);
  });

  it('eliminates the nodes of a model whose own maximum is far below the prompt', () => {
    const tiny = agentNode({ id: 'tiny', models: [makeNodeModel({ contextLength: 2048 })], loaded: [] });
    const ranking = rankNodes(snapshotOf([tiny]), makeRequest({ promptTokens: 4000 }), context);
    expect(ranking.ranked).toEqual([]);
    expect(ranking.eliminated).toEqual([
      {
        nodeId: 'tiny',
        reason: 'context-too-long',
        detail: "prompt of about 4000 tokens is far over the model's 2048-token context",
        tooLong: { promptTokens: 4000, maxContext: 2048 },
      },
    ]);
  });

  it('keeps a prompt within the margin of the maximum: it goes, at the maximum', () => {
    const tiny = agentNode({ id: 'tiny', models: [makeNodeModel({ contextLength: 2048 })], loaded: [] });
    const ranking = rankNodes(snapshotOf([tiny]), makeRequest({ promptTokens: 3000 }), context);
    expect(ids(ranking)).toEqual(['tiny']);
  });

  it('falls back to a model that can hold the prompt', async () => {
    const tiny = agentNode({ id: 'tiny', models: [makeNodeModel({ contextLength: 2048 })], loaded: [] });
    const roomy = agentNode({ id: 'roomy', models: [makeNodeModel({ name: 'qwen3:8b', contextLength: 40_960 })] });
    const { run, calls } = dispatcherFor([tiny, roomy]);
    const result = await run(makeRequest({ promptTokens: 9000, fallbackModels: ['qwen3:8b'] }));
    expect(calls).toEqual(['roomy/qwen3:8b']);
    expect(result.decision.fallbackModel).toBe('qwen3:8b');
  });

  it('refuses with the context error, in each family, when no model tried can hold the prompt', async () => {
    const tiny = agentNode({ id: 'tiny', models: [makeNodeModel({ contextLength: 2048 })], loaded: [] });
    const { run, calls } = dispatcherFor([tiny]);
    const error = await rejection(run(makeRequest({ promptTokens: 26_000 })));

    expect(calls).toEqual([]);
    expect(error.status).toBe(400);
    expect(JSON.parse(renderError('openai', error).body)).toEqual({
      error: {
        message: expect.stringMatching(/^prompt is too long: 26000 tokens > 2048 maximum\b/),
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    });
    expect(JSON.parse(renderError('anthropic', error).body)).toEqual({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: expect.stringMatching(/^prompt is too long: 26000 tokens > 2048 maximum\b/),
      },
    });
    expect(JSON.parse(renderError('ollama', error).body)).toEqual({
      error: expect.stringMatching(/^prompt is too long: 26000 tokens > 2048 maximum\b/),
    });
  });
});
