import { describe, expect, it } from '@jest/globals';
import { usageRows } from '../../../../lib/core/analytics/usage';
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
});
