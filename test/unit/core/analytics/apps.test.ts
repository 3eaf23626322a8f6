import { describe, expect, it } from '@jest/globals';
import { type TagDayRollup, tagDaily, tagSummary, tagUsage } from '../../../../lib/core/analytics/apps';
import { type RollupTrace, rollupOf, sumRollups, traceIncrements } from '../../../../lib/core/analytics/rollup';

const HOUR = 3_600_000;
const D0 = Date.UTC(2026, 10, 20);
const D1 = D0 + 24 * HOUR;

const trace = (overrides: Partial<RollupTrace>): RollupTrace => ({
  startedAt: D0,
  style: 'openai-chat',
  status: 'completed',
  latencyMs: 1000,
  retries: 0,
  ...overrides,
});

/** The rollup the traces add up to, as a table item holding their increments and maxima reads back. */
function rolled(traces: readonly RollupTrace[], withMaxima = true) {
  return sumRollups(
    traces.map((entry) => {
      const { counters, maxima } = traceIncrements(entry);
      return rollupOf(withMaxima ? { ...counters, ...maxima } : counters);
    }),
  );
}

const rows: TagDayRollup[] = [
  {
    tag: 'app:a',
    startMs: D0,
    rollup: rolled([
      trace({ startedAt: D0 + HOUR, timeToFirstTokenMs: 100, promptTokens: 100, completionTokens: 10 }),
      trace({ startedAt: D0 + 2 * HOUR, status: 'failed', latencyMs: 3000 }),
    ]),
  },
  {
    tag: 'app:a',
    startMs: D1,
    rollup: rolled([
      trace({
        startedAt: D1 + 5 * HOUR,
        latencyMs: 2000,
        timeToFirstTokenMs: 300,
        promptTokens: 200,
        completionTokens: 20,
      }),
    ]),
  },
  {
    tag: 'user:bo',
    startMs: D1,
    rollup: rolled([
      trace({ startedAt: D1 + 5 * HOUR, status: 'retried', latencyMs: 9000 }),
      trace({
        startedAt: D1 + 6 * HOUR,
        latencyMs: 500,
        timeToFirstTokenMs: 50,
        promptTokens: 40,
        completionTokens: 4,
      }),
      trace({ startedAt: D1 + 7 * HOUR, status: 'incomplete', latencyMs: 800, timeToFirstTokenMs: 60 }),
    ]),
  },
  // Only a retried attempt: no request, so no entry.
  { tag: 'idle', startMs: D1, rollup: rolled([trace({ startedAt: D1, status: 'retried' })]) },
];

describe('tagUsage', () => {
  it('sums each tag over the window, most requests first, percentiles from the latency buckets', () => {
    expect(tagUsage(rows)).toEqual([
      {
        tag: 'app:a',
        request_count: 3,
        completed_count: 2,
        failed_count: 1,
        incomplete_count: 0,
        client_disconnected_count: 0,
        error_rate_pct: 33.3,
        avg_latency_ms: 2000,
        // Latencies 1000, 2000, 3000 read as their buckets' middles: 1961 and 3025 (within 4.4 %).
        p50_latency_ms: 1961,
        p95_latency_ms: 3025,
        avg_ttft_ms: 200,
        total_prompt_tokens: 300,
        total_completion_tokens: 30,
        total_tokens: 330,
        first_seen: D0 / 1000,
        last_seen: (D1 + 5 * HOUR) / 1000,
      },
      {
        tag: 'user:bo',
        request_count: 2,
        completed_count: 1,
        failed_count: 0,
        incomplete_count: 1,
        client_disconnected_count: 0,
        error_rate_pct: 50,
        avg_latency_ms: 650,
        p50_latency_ms: 490,
        p95_latency_ms: 825,
        avg_ttft_ms: 55,
        total_prompt_tokens: 40,
        total_completion_tokens: 4,
        total_tokens: 44,
        first_seen: D1 / 1000,
        last_seen: (D1 + 7 * HOUR) / 1000,
      },
    ]);
  });

  it('orders tags with as many requests by name, and says null where nothing was measured', () => {
    const one = rolled([trace({ latencyMs: 10 })], false);

    const usage = tagUsage([
      { tag: 'b', startMs: D0, rollup: one },
      { tag: 'a', startMs: D0, rollup: one },
    ]);

    expect(usage.map((entry) => entry.tag)).toEqual(['a', 'b']);
    expect(usage[0]).toMatchObject({ avg_ttft_ms: null, last_seen: null, total_tokens: 0, error_rate_pct: 0 });
  });

  it('is empty with no rows', () => {
    expect(tagUsage([])).toEqual([]);
    expect(tagSummary([])).toEqual({ tag_count: 0, top_tag: null, request_count: 0, total_tokens: 0 });
  });
});

describe('tagDaily', () => {
  it('shows each tag per UTC day, oldest first and then by tag, leaving out days without a request', () => {
    expect(tagDaily(rows).map((day) => [day.date, day.day_bucket, day.tag, day.request_count])).toEqual([
      ['2026-11-20', D0 / 1000, 'app:a', 2],
      ['2026-11-21', D1 / 1000, 'app:a', 1],
      ['2026-11-21', D1 / 1000, 'user:bo', 2],
    ]);
    expect(tagDaily(rows)[0]).toEqual({
      tag: 'app:a',
      day_bucket: D0 / 1000,
      date: '2026-11-20',
      request_count: 2,
      completed_count: 1,
      failed_count: 1,
      incomplete_count: 0,
      client_disconnected_count: 0,
      error_rate_pct: 50,
      avg_latency_ms: 2000,
      p50_latency_ms: 981,
      p95_latency_ms: 3025,
      avg_ttft_ms: 100,
      total_prompt_tokens: 100,
      total_completion_tokens: 10,
      total_tokens: 110,
    });
  });
});

describe('tagSummary', () => {
  it('counts the tags, names the busiest and sums requests per tag (a request with two tags counts twice)', () => {
    expect(tagSummary(tagUsage(rows))).toEqual({ tag_count: 2, top_tag: 'app:a', request_count: 5, total_tokens: 374 });
  });
});
