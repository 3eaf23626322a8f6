import { describe, expect, it } from '@jest/globals';
import { usageRows, usageTotals } from '../../../../lib/core/analytics/usage';
import { dayRow, rollupTrace } from '../../../helpers/rollup-rows';

describe('usageRows', () => {
  it('gives each day × node × model the reference fields with exact sums and averages', () => {
    const rows = usageRows([
      dayRow('2026-11-21', 'gpu-1', 'llama3:8b', [rollupTrace({ latencyMs: 300 })]),
      dayRow('2026-11-20', 'gpu-2', 'llama3:8b', [rollupTrace()]),
      dayRow('2026-11-20', 'gpu-1', 'llama3:8b', [
        rollupTrace({ latencyMs: 100, retries: 1, fallbackModel: 'qwen3:8b', cachedTokens: 4 }),
        rollupTrace({ latencyMs: 200, timeToFirstTokenMs: 70 }),
        rollupTrace({
          status: 'failed',
          latencyMs: 600,
          timeToFirstTokenMs: undefined,
          promptTokens: 0,
          completionTokens: 0,
        }),
        rollupTrace({ status: 'client_disconnected', latencyMs: 50, loadMs: 2000 }),
        rollupTrace({ status: 'retried', latencyMs: 999 }),
      ]),
    ]);

    expect(rows.map((row) => [row.day, row.node_id])).toEqual([
      ['2026-11-20', 'gpu-1'],
      ['2026-11-20', 'gpu-2'],
      ['2026-11-21', 'gpu-1'],
    ]);
    expect(rows[0]).toEqual({
      node_id: 'gpu-1',
      model_name: 'llama3:8b',
      day_bucket: Date.UTC(2026, 10, 20) / 1000,
      day: '2026-11-20',
      request_count: 4,
      completed_count: 2,
      failed_count: 1,
      client_disconnected_count: 1,
      incomplete_count: 0,
      error_count: 2,
      retried_attempts: 1,
      // (100 + 200 + 600 + 50) / 4
      avg_latency_ms: 237.5,
      // (50 + 70 + 50) / 3: the failed request had no first token
      avg_ttft_ms: 56.7,
      total_prompt_tokens: 30,
      total_completion_tokens: 15,
      total_tokens: 45,
      total_retries: 1,
      total_fallbacks: 1,
      cached_prompt_tokens: 4,
      cold_loads: 1,
      prefill_tokens_per_second: null,
      decode_tokens_per_second: null,
      prompt_cache: {
        share_pct: 40,
        source: 'measured',
        measured_pct: 40,
        measured_requests: 1,
        estimated_pct: null,
        estimated_requests: 0,
      },
    });
  });

  it('says null where nothing measured the value, never zero', () => {
    const [row] = usageRows([dayRow('2026-11-20', 'gpu-1', 'm', [rollupTrace({ status: 'retried' })])]);

    expect(row).toMatchObject({
      request_count: 0,
      avg_latency_ms: null,
      avg_ttft_ms: null,
      cached_prompt_tokens: null,
    });
  });

  it('gives each row the node’s own prefill and decode rates and its estimated prompt-cache share', () => {
    const [row] = usageRows([
      dayRow('2026-11-20', 'gpu-1', 'm', [
        rollupTrace({
          promptTokens: 40,
          promptEvalMs: 20,
          completionTokens: 25,
          evalMs: 500,
          promptEstimateTokens: 100,
        }),
      ]),
    ]);

    expect(row).toMatchObject({
      prefill_tokens_per_second: 2000,
      decode_tokens_per_second: 50,
      prompt_cache: { share_pct: 60, source: 'estimated', estimated_requests: 1 },
    });
  });
});

describe('usageTotals', () => {
  it('sums each node’s rows over its models and days, and the fleet’s over every node, as exact ratios', () => {
    const fast = { promptTokens: 300, promptEvalMs: 100, completionTokens: 100, evalMs: 1000 };
    const slow = { promptTokens: 100, promptEvalMs: 100, completionTokens: 20, evalMs: 1000 };
    const totals = usageTotals([
      dayRow('2026-11-20', 'gpu-b', 'm1', [rollupTrace({ ...fast, promptEstimateTokens: 600 })]),
      dayRow('2026-11-21', 'gpu-b', 'm2', [rollupTrace({ ...slow, promptEstimateTokens: 100 })]),
      dayRow('2026-11-20', 'gpu-a', 'm1', [rollupTrace(slow), rollupTrace({ status: 'retried' })]),
    ]);

    expect(totals.nodes.map((node) => node.node_id)).toEqual(['gpu-a', 'gpu-b']);
    expect(totals.nodes[0]).toMatchObject({
      node_id: 'gpu-a',
      request_count: 1,
      prefill_tokens_per_second: 1000,
      decode_tokens_per_second: 20,
      prompt_cache: { share_pct: null, source: null },
    });
    expect(totals.nodes[1]).toMatchObject({
      node_id: 'gpu-b',
      request_count: 2,
      // 400 tokens in 200 ms; 120 tokens in 2000 ms
      prefill_tokens_per_second: 2000,
      decode_tokens_per_second: 60,
      // 1 − 400 / 700
      prompt_cache: { share_pct: 42.9, source: 'estimated', estimated_requests: 2 },
    });
    expect(totals.fleet).toMatchObject({
      request_count: 3,
      // 500 tokens in 300 ms; 140 tokens in 3000 ms
      prefill_tokens_per_second: 1666.7,
      decode_tokens_per_second: 46.7,
      prompt_cache: { share_pct: 42.9, source: 'estimated' },
    });
  });

  it('has no node and null fleet figures for a window without requests', () => {
    expect(usageTotals([])).toEqual({
      nodes: [],
      fleet: expect.objectContaining({
        request_count: 0,
        prefill_tokens_per_second: null,
        decode_tokens_per_second: null,
      }),
    });
  });
});
