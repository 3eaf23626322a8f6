import { describe, expect, it } from '@jest/globals';
import { observedRates, promptCacheShare } from '../../../../lib/core/analytics/observed-rates';
import { emptyRollup } from '../../../../lib/core/analytics/rollup';
import { rollupOfTraces, rollupTrace } from '../../../helpers/rollup-rows';

describe('observedRates', () => {
  it('gives prefill and decode rates as the ratio of the window’s sums, not the average of each request’s rate', () => {
    // 100 tokens in 100 ms (1000 tok/s) and 900 tokens in 100 ms (9000 tok/s): 1000 in 200 ms is 5000 tok/s.
    const rollup = rollupOfTraces([
      rollupTrace({ promptTokens: 100, promptEvalMs: 100, completionTokens: 10, evalMs: 400 }),
      rollupTrace({ promptTokens: 900, promptEvalMs: 100, completionTokens: 30, evalMs: 600 }),
      // Neither time reported: its tokens are left out of both rates.
      rollupTrace({ promptTokens: 5000, completionTokens: 5000 }),
    ]);

    const rates = observedRates(rollup);

    expect(rates.prefill_tokens_per_second).toBe(5000);
    // 40 tokens in 1000 ms
    expect(rates.decode_tokens_per_second).toBe(40);
  });

  it('says null where no node reported its times, never zero', () => {
    expect(observedRates(rollupOfTraces([rollupTrace()]))).toEqual({
      prefill_tokens_per_second: null,
      decode_tokens_per_second: null,
      prompt_cache: {
        share_pct: null,
        source: null,
        measured_pct: null,
        measured_requests: 0,
        estimated_pct: null,
        estimated_requests: 0,
      },
    });
    expect(observedRates(emptyRollup()).prefill_tokens_per_second).toBeNull();
  });
});

describe('promptCacheShare', () => {
  it('estimates the share from the router’s prompt estimate against the tokens the nodes evaluated', () => {
    // 1000 + 3000 estimated, 1000 + 600 evaluated: 1 − 1600 / 4000 = 60 %.
    const share = promptCacheShare(
      rollupOfTraces([
        rollupTrace({ promptEstimateTokens: 1000, promptTokens: 1000 }),
        rollupTrace({ promptEstimateTokens: 3000, promptTokens: 600 }),
        // No estimate: not part of the share.
        rollupTrace({ promptTokens: 10_000 }),
      ]),
    );

    expect(share).toEqual({
      share_pct: 60,
      source: 'estimated',
      measured_pct: null,
      measured_requests: 0,
      estimated_pct: 60,
      estimated_requests: 2,
    });
  });

  it('never estimates below zero when the nodes evaluated more than the router estimated', () => {
    const share = promptCacheShare(rollupOfTraces([rollupTrace({ promptEstimateTokens: 100, promptTokens: 130 })]));

    expect(share.estimated_pct).toBe(0);
    expect(share.source).toBe('estimated');
  });

  it('prefers the measured share where a node reported its cached tokens, and still gives the estimate', () => {
    const share = promptCacheShare(
      rollupOfTraces([
        rollupTrace({ promptTokens: 200, cachedTokens: 50, promptEstimateTokens: 200 }),
        rollupTrace({ promptTokens: 300, promptEstimateTokens: 600 }),
      ]),
    );

    expect(share).toEqual({
      // 50 / 200
      share_pct: 25,
      source: 'measured',
      measured_pct: 25,
      measured_requests: 1,
      // 1 − 500 / 800
      estimated_pct: 37.5,
      estimated_requests: 2,
    });
  });

  it('counts a measured zero as measured: nothing reused', () => {
    const share = promptCacheShare(rollupOfTraces([rollupTrace({ promptTokens: 200, cachedTokens: 0 })]));

    expect(share).toMatchObject({ share_pct: 0, source: 'measured', measured_requests: 1 });
  });
});
