import { describe, expect, it } from '@jest/globals';
import { trendHours } from '../../../../lib/core/analytics/trends';
import { utcHoursIn } from '../../../../lib/core/analytics/window';
import { hourRow, rollupTrace } from '../../../helpers/rollup-rows';

const HOUR = 3_600_000;
const H10 = Date.UTC(2026, 10, 20, 10);

describe('trendHours', () => {
  it('lists every hour of the window, the empty ones with zero counts and null averages', () => {
    const hours = utcHoursIn({ startMs: H10 - 30 * 60_000, endMs: H10 + 2 * HOUR });
    const rows = [
      hourRow(H10, [
        rollupTrace({ latencyMs: 100, timeToFirstTokenMs: 50 }),
        rollupTrace({ latencyMs: 200, timeToFirstTokenMs: 100 }),
        rollupTrace({ latencyMs: 800, status: 'incomplete', promptTokens: 7, completionTokens: 2 }),
      ]),
      hourRow(H10 + HOUR, [rollupTrace({ latencyMs: 1000, timeToFirstTokenMs: 200 })]),
    ];

    const data = trendHours(hours, rows);

    expect(data).toEqual([
      {
        hour_bucket: (H10 - HOUR) / 1000,
        request_count: 0,
        completed_count: 0,
        error_count: 0,
        avg_latency_ms: null,
        p50_latency_ms: null,
        p95_latency_ms: null,
        avg_ttft_ms: null,
        p50_ttft_ms: null,
        p95_ttft_ms: null,
        total_prompt_tokens: 0,
        total_completion_tokens: 0,
      },
      {
        hour_bucket: H10 / 1000,
        request_count: 3,
        completed_count: 2,
        error_count: 1,
        avg_latency_ms: 366.7,
        p50_latency_ms: 206.1,
        p95_latency_ms: 824.6,
        // (50 + 100 + 50) / 3
        avg_ttft_ms: 66.7,
        p50_ttft_ms: 51.5,
        p95_ttft_ms: 103.1,
        total_prompt_tokens: 27,
        total_completion_tokens: 12,
      },
      expect.objectContaining({ hour_bucket: (H10 + HOUR) / 1000, request_count: 1, p50_latency_ms: 980.6 }),
    ]);
  });

  it('adds up rows of the same hour (fleet rows written apart)', () => {
    const [hour] = trendHours([H10], [hourRow(H10, [rollupTrace()]), hourRow(H10, [rollupTrace({ latencyMs: 300 })])]);

    expect(hour).toMatchObject({ request_count: 2, avg_latency_ms: 200 });
  });
});
