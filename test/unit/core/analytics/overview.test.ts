import { describe, expect, it } from '@jest/globals';
import { overviewView } from '../../../../lib/core/analytics/overview';
import {
  bareListedNode,
  makeLoadedModel,
  makeNodeModel,
  makeQueueState,
  snapshotOf,
  T0,
} from '../../../helpers/factories';
import { dayRow, hourRow, rollupTrace } from '../../../helpers/rollup-rows';

const HOUR = 3_600_000;

describe('overviewView', () => {
  it('shows all-time totals, the last 24 hours, nodes, models and queues', () => {
    const totals = [
      { ...dayRow('2026-11-20', 'gpu1', 'llama3.2:3b', [rollupTrace(), rollupTrace()]), period: 'all', startMs: 0 },
      { ...dayRow('2026-11-20', 'gpu2', 'qwen3:8b', [rollupTrace({ promptTokens: 100 })]), period: 'all', startMs: 0 },
      { ...dayRow('2026-11-20', 'gpu2', 'gone', [rollupTrace({ status: 'retried' })]), period: 'all', startMs: 0 },
    ];
    const hours = [
      hourRow(T0 - 2 * HOUR, [rollupTrace({ latencyMs: 100 }), rollupTrace({ latencyMs: 300, status: 'failed' })]),
      hourRow(T0 - HOUR, [
        rollupTrace({
          latencyMs: 200,
          retries: 2,
          fallbackModel: 'x',
          promptEvalMs: 5,
          evalMs: 100,
          promptEstimateTokens: 40,
        }),
      ]),
    ];
    const snapshot = snapshotOf([
      bareListedNode('gpu1', { models: [makeNodeModel()], loaded: [makeLoadedModel()] }),
      bareListedNode('gpu2', { models: [makeNodeModel({ name: 'qwen3:8b' })], lastSeenAt: T0 - 20_000 }),
      bareListedNode('gpu3', { lastSeenAt: T0 - 60_000 }),
    ]);
    const queues = [makeQueueState({ inFlight: 2, pending: 3 }), makeQueueState({ nodeId: 'gpu2', inFlight: 1 })];

    const view = overviewView({ totals, hours, since: T0 - 23 * HOUR, snapshot, queues, now: T0 + 1000 });

    expect(view).toEqual({
      total_requests: 3,
      total_prompt_tokens: 120,
      total_completion_tokens: 15,
      total_tokens: 135,
      models_count: 2,
      last_24h: {
        since: (T0 - 23 * HOUR) / 1000,
        requests: 3,
        completed: 2,
        errors: 1,
        error_rate_pct: 33.3,
        avg_latency_ms: 200,
        // 300 ms is in the bucket [279.2, 304.4), read as its geometric middle
        p95_latency_ms: 291.5,
        avg_ttft_ms: 50,
        prompt_tokens: 30,
        completion_tokens: 15,
        retries: 2,
        fallbacks: 1,
        // 10 prompt tokens in 5 ms, 5 completion tokens in 100 ms, 1 − 10 / 40 of the prompt cached
        prefill_tokens_per_second: 2000,
        decode_tokens_per_second: 50,
        prompt_cache: {
          share_pct: 75,
          source: 'estimated',
          measured_pct: null,
          measured_requests: 0,
          estimated_pct: 75,
          estimated_requests: 1,
        },
      },
      nodes: { total: 3, online: 1, degraded: 1, offline: 1 },
      models_loaded: 1,
      models_available: 2,
      in_flight: 3,
      pending: 3,
      timestamp: T0 / 1000 + 1,
    });
  });

  it('says null for rates of a quiet day, never zero', () => {
    const view = overviewView({ totals: [], hours: [], since: T0, snapshot: snapshotOf([]), queues: [], now: T0 });

    expect(view.last_24h).toMatchObject({
      requests: 0,
      error_rate_pct: null,
      avg_latency_ms: null,
      p95_latency_ms: null,
    });
    expect(view).toMatchObject({ total_requests: 0, models_count: 0, nodes: { total: 0 } });
  });
});
