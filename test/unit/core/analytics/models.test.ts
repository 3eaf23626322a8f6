import { describe, expect, it } from '@jest/globals';
import { modelsView } from '../../../../lib/core/analytics/models';
import { dayRow, rollupTrace } from '../../../helpers/rollup-rows';

const DAY1 = Date.UTC(2026, 10, 20);
const DAY2 = Date.UTC(2026, 10, 21);

describe('modelsView', () => {
  const { daily, summary } = modelsView([
    dayRow('2026-11-20', 'gpu-1', 'llama3:8b', [
      rollupTrace({ startedAt: DAY1 + 1000, latencyMs: 100 }),
      rollupTrace({ startedAt: DAY1 + 2000, latencyMs: 200 }),
      rollupTrace({ startedAt: DAY1 + 3000, latencyMs: 400, promptTokens: 90, completionTokens: 5 }),
    ]),
    dayRow('2026-11-20', 'gpu-2', 'llama3:8b', [
      rollupTrace({
        startedAt: DAY1 + 5000,
        status: 'failed',
        latencyMs: 800,
        timeToFirstTokenMs: undefined,
        promptTokens: 0,
        completionTokens: 0,
      }),
    ]),
    dayRow('2026-11-21', 'gpu-1', 'qwen3:8b', [
      rollupTrace({
        startedAt: DAY2 + 7000,
        latencyMs: 1000,
        timeToFirstTokenMs: 100,
        promptTokens: 20,
        completionTokens: 11,
        cachedTokens: 15,
      }),
    ]),
  ]);

  it('folds the nodes of a model into one row per day', () => {
    expect(daily).toEqual([
      {
        model_name: 'llama3:8b',
        day_bucket: DAY1 / 1000,
        day: '2026-11-20',
        request_count: 4,
        completed_count: 3,
        error_count: 1,
        avg_latency_ms: 375,
        avg_ttft_ms: 50,
        total_prompt_tokens: 110,
        total_completion_tokens: 15,
        // 3 × 4 tokens decoded in (100 − 50) + (200 − 50) + (400 − 50) ms
        tokens_per_second: 21.8,
      },
      {
        model_name: 'qwen3:8b',
        day_bucket: DAY2 / 1000,
        day: '2026-11-21',
        request_count: 1,
        completed_count: 1,
        error_count: 0,
        avg_latency_ms: 1000,
        avg_ttft_ms: 100,
        total_prompt_tokens: 20,
        total_completion_tokens: 11,
        tokens_per_second: 11.1,
      },
    ]);
  });

  it('summarises each model with percentiles from the histograms and exact bounds instead of min and max', () => {
    expect(summary.map((model) => model.model_name)).toEqual(['llama3:8b', 'qwen3:8b']);
    expect(summary[0]).toEqual({
      model_name: 'llama3:8b',
      total_requests: 4,
      completed_count: 3,
      error_count: 1,
      error_rate_pct: 25,
      avg_latency_ms: 375,
      min_latency_ms: null,
      max_latency_ms: null,
      // 100 is in [98.7, 107.6), 800 in [789.6, 861.1)
      latency_range_ms: { from: 98.7, below: 861.1 },
      // the buckets of 200, 400, 800 and 800 read as their geometric middles
      latency_ms: { p50: 206.1, p75: 412.3, p95: 824.6, p99: 824.6 },
      avg_ttft_ms: 50,
      ttft_ms: { p50: 51.5, p75: 51.5, p95: 51.5, p99: 51.5 },
      tokens_per_second: 21.8,
      // no node said how much of the prompt came from its cache: unmeasured, not 0 %
      cache_measured_requests: 0,
      cache_hit_rate_pct: null,
      total_prompt_tokens: 110,
      total_completion_tokens: 15,
      max_prompt_tokens: 90,
      max_total_tokens: 95,
      total_retries: 0,
      total_fallbacks: 0,
      nodes: ['gpu-1', 'gpu-2'],
      first_seen: DAY1 / 1000,
      last_seen: (DAY1 + 5000) / 1000,
    });
    expect(summary[1]).toMatchObject({
      total_requests: 1,
      first_seen: DAY2 / 1000,
      last_seen: DAY2 / 1000 + 7,
      // 15 of its 20 prompt tokens were served from the cache
      cache_measured_requests: 1,
      cache_hit_rate_pct: 75,
    });
  });

  it('leaves out rows without requests', () => {
    const view = modelsView([dayRow('2026-11-20', 'gpu-1', 'm', [rollupTrace({ status: 'retried' })])]);

    expect(view).toEqual({ daily: [], summary: [] });
  });
});
