import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { bucketOf } from '../../../../lib/core/analytics/histogram';
import {
  addRollups,
  addTrace,
  COLD_LOAD_MS,
  createRollupSums,
  emptyRollup,
  incrementsOf,
  type RollupTrace,
  rollupOf,
  sumRollups,
  traceIncrements,
} from '../../../../lib/core/analytics/rollup';

const AT = Date.UTC(2026, 10, 26, 13, 5);

const completed: RollupTrace = {
  startedAt: AT,
  style: 'openai-chat',
  status: 'completed',
  latencyMs: 812.4,
  timeToFirstTokenMs: 120,
  promptTokens: 26,
  completionTokens: 40,
  retries: 1,
  fallbackModel: 'llama3.2:1b',
  loadMs: COLD_LOAD_MS,
};

describe('traceIncrements', () => {
  it('counts a completed request: tokens, latency, TTFT, decode, retries, fallback, cold load, histograms, maxima', () => {
    expect(traceIncrements(completed, { byStyle: true })).toEqual({
      counters: {
        requests: 1,
        completed: 1,
        prompt_tokens: 26,
        completion_tokens: 40,
        latency_ms: 812,
        ttft_ms: 120,
        ttft_count: 1,
        decode_ms: 692,
        decode_tokens: 39,
        retries: 1,
        fallbacks: 1,
        cold_loads: 1,
        [`hl${bucketOf(812)}`]: 1,
        [`ht${bucketOf(120)}`]: 1,
        [`hp${bucketOf(26)}`]: 1,
        [`hn${bucketOf(66)}`]: 1,
        'style_openai-chat': 1,
      },
      maxima: { max_prompt_tokens: 26, max_total_tokens: 66, last_at: AT },
    });
  });

  it.each(['failed', 'client_disconnected', 'incomplete'] as const)(
    'counts a %s request with its latency and tokens, outside the token histograms and maxima',
    (status) => {
      // Below COLD_LOAD_MS a load is not a cold load; no fallback here.
      const { fallbackModel: _f, ...rest } = completed;
      expect(traceIncrements({ ...rest, status, loadMs: COLD_LOAD_MS - 1 }, { byStyle: true })).toEqual({
        counters: {
          requests: 1,
          [status]: 1,
          prompt_tokens: 26,
          completion_tokens: 40,
          latency_ms: 812,
          ttft_ms: 120,
          ttft_count: 1,
          retries: 1,
          [`hl${bucketOf(812)}`]: 1,
          [`ht${bucketOf(120)}`]: 1,
          'style_openai-chat': 1,
          'style_openai-chat_failed': 1,
        },
        maxima: { last_at: AT },
      });
    },
  );

  it('counts a retried attempt only as retried (its request counts once, by its final trace)', () => {
    expect(traceIncrements({ ...completed, status: 'retried' }, { byStyle: true })).toEqual({
      counters: { retried: 1 },
      maxima: { last_at: AT },
    });
  });

  it('counts cached tokens where the node reports them, zero included, and no TTFT where there is none', () => {
    const { timeToFirstTokenMs: _t, ...noTtft } = completed;
    const { counters } = traceIncrements({ ...noTtft, cachedTokens: 0 });
    expect(counters).toMatchObject({ cached_count: 1 });
    expect(rollupOf(counters).counters).toMatchObject({ cached_tokens: 0, cached_count: 1 });
    expect(counters['ttft_count']).toBeUndefined();
    expect(counters['decode_ms']).toBeUndefined();
    expect(counters['style_openai-chat']).toBeUndefined();
  });
});

describe('traceIncrements: the node’s own figures', () => {
  it('counts prefill and decode tokens with the node’s own times, and the prompt estimate beside the evaluated tokens', () => {
    const { counters } = traceIncrements({ ...completed, promptEvalMs: 13, evalMs: 400, promptEstimateTokens: 120 });

    expect(counters).toMatchObject({
      prompt_eval_tokens: 26,
      prompt_eval_ms: 13,
      eval_tokens: 40,
      eval_ms: 400,
      estimate_prompt_tokens: 120,
      estimate_evaluated_tokens: 26,
      estimate_count: 1,
    });
  });

  it('counts no rate where a time or its tokens are zero or missing, and no estimate without evaluated tokens', () => {
    const { promptTokens: _p, ...noPrompt } = completed;
    const cases: RollupTrace[] = [
      { ...completed, promptEvalMs: 0, evalMs: 0 },
      { ...completed, promptTokens: 0, completionTokens: 0, promptEvalMs: 5, evalMs: 5, promptEstimateTokens: 0 },
      { ...completed },
      { ...noPrompt, promptEvalMs: 5, promptEstimateTokens: 50 },
    ];
    for (const trace of cases) {
      const { counters } = traceIncrements(trace);
      for (const name of [
        'prompt_eval_tokens',
        'prompt_eval_ms',
        'eval_tokens',
        'eval_ms',
        'estimate_prompt_tokens',
        'estimate_evaluated_tokens',
        'estimate_count',
      ]) {
        expect(counters[name]).toBeUndefined();
      }
    }
  });

  it('counts a node that evaluated nothing of an estimated prompt (all of it cached) as evaluated zero', () => {
    const { counters } = traceIncrements({ ...completed, promptTokens: 0, promptEstimateTokens: 300 });

    expect(counters).toMatchObject({ estimate_prompt_tokens: 300, estimate_count: 1 });
    expect(rollupOf(counters).counters.estimate_evaluated_tokens).toBe(0);
  });

  it('sums fractional ms to the microsecond, without a float’s trailing digits', () => {
    const sums = createRollupSums();
    for (let i = 0; i < 10; i += 1) addTrace(sums, { ...completed, promptEvalMs: 0.1, evalMs: 0.7 });

    const { counters } = incrementsOf(sums);

    expect(counters['prompt_eval_ms']).toBe(1);
    expect(counters['eval_ms']).toBe(7);
  });
});

const traceArbitrary: fc.Arbitrary<RollupTrace> = fc.record(
  {
    startedAt: fc.integer({ min: AT, max: AT + 3_600_000 }),
    style: fc.constantFrom('openai-chat', 'ollama-chat', 'embeddings'),
    status: fc.constantFrom('completed', 'failed', 'retried', 'client_disconnected', 'incomplete'),
    latencyMs: fc.double({ min: 0, max: 600_000, noNaN: true }),
    timeToFirstTokenMs: fc.integer({ min: 0, max: 60_000 }),
    promptTokens: fc.integer({ min: 0, max: 200_000 }),
    completionTokens: fc.integer({ min: 0, max: 10_000 }),
    retries: fc.integer({ min: 0, max: 3 }),
    fallbackModel: fc.constant('fallback'),
    cachedTokens: fc.integer({ min: 0, max: 1000 }),
    loadMs: fc.integer({ min: 0, max: 5000 }),
    // Whole ms here, so that sums in any order are exact; fractions are rounded as one sum (below).
    promptEvalMs: fc.integer({ min: 0, max: 60_000 }),
    evalMs: fc.integer({ min: 0, max: 600_000 }),
    promptEstimateTokens: fc.integer({ min: 0, max: 200_000 }),
  },
  { requiredKeys: ['startedAt', 'style', 'status', 'latencyMs', 'retries'] },
);

const attributesOf = (increments: ReturnType<typeof traceIncrements>) => ({
  ...increments.counters,
  ...increments.maxima,
});

describe('rollupOf and addRollups', () => {
  it('reads back what the sums of many traces write as the sum of each trace’s own rollup', () => {
    fc.assert(
      fc.property(fc.array(traceArbitrary, { maxLength: 40 }), (traces) => {
        const sums = createRollupSums();
        for (const trace of traces) addTrace(sums, trace);

        const written = rollupOf(attributesOf(incrementsOf(sums)));

        expect(written).toEqual(sumRollups(traces.map((trace) => rollupOf(attributesOf(traceIncrements(trace))))));
      }),
    );
  });

  it('keeps the larger maximum and adds counters, buckets and style counts', () => {
    const a = rollupOf(attributesOf(traceIncrements(completed, { byStyle: true })));
    const b = rollupOf(
      attributesOf(traceIncrements({ ...completed, startedAt: AT + 1, promptTokens: 10 }, { byStyle: true })),
    );

    const sum = addRollups(a, b);

    expect(sum.counters.requests).toBe(2);
    expect(sum.counters.prompt_tokens).toBe(36);
    expect(sum.maxima).toEqual({ max_prompt_tokens: 26, max_total_tokens: 66, last_at: AT + 1 });
    expect(sum.histograms.latency_ms.get(bucketOf(812))).toBe(2);
    expect(sum.styles).toEqual({ 'style_openai-chat': 2 });
    expect(addRollups(emptyRollup(), a)).toEqual(a);
  });

  it('ignores attributes that are not the rollup’s', () => {
    expect(rollupOf({ pk: 'ROLLUP#D#x', expiresAt: 5, hx3: 1, doc: 'x' })).toEqual(emptyRollup());
  });
});
