import { describe, expect, it } from '@jest/globals';
import {
  answerReserve,
  clearlyTooLong,
  contextSize,
  DEFAULT_ANSWER_TOKENS,
  MAX_ANSWER_RESERVE,
} from '../../../../lib/core/context/context-window';
import { planContext } from '../../../../lib/core/context/plan-context';

describe('answerReserve', () => {
  it('reserves the request budget, the default when there is none, and never more than the cap', () => {
    expect(answerReserve(512)).toBe(512);
    expect(answerReserve(undefined)).toBe(DEFAULT_ANSWER_TOKENS);
    expect(answerReserve(-1)).toBe(DEFAULT_ANSWER_TOKENS);
    expect(answerReserve(64_000)).toBe(MAX_ANSWER_RESERVE);
  });
});

describe('contextSize', () => {
  it('rounds the need up to a power of two, never above the model maximum', () => {
    expect(contextSize(27_000, 131_072)).toBe(32_768);
    expect(contextSize(32_768, 131_072)).toBe(32_768);
    expect(contextSize(36_000, 40_960)).toBe(40_960);
    expect(contextSize(100, undefined)).toBe(2048);
  });
});

describe('clearlyTooLong', () => {
  it('refuses only an estimate over 1.5 times the model maximum', () => {
    expect(clearlyTooLong(6000, 4096)).toBe(false);
    expect(clearlyTooLong(6145, 4096)).toBe(true);
    expect(clearlyTooLong(1_000_000, undefined)).toBe(false);
  });
});

describe('planContext', () => {
  const hot = { loaded: true, modelMax: 131_072 };

  it('changes nothing when the loaded context holds the prompt and the answer', () => {
    const plan = planContext({ ...hot, promptTokens: 20_000, numPredict: 1024, loadedContext: 32_768 });
    expect(plan).toEqual({ window: 32_768, description: 'fits' });
  });

  it('asks for a num_ctx that fits when the loaded context is too small', () => {
    const plan = planContext({ ...hot, promptTokens: 26_000, numPredict: 1024, loadedContext: 4096 });
    expect(plan).toEqual({ numCtx: 32_768, window: 32_768, description: 'num_ctx=32768 (loaded 4096)' });
  });

  it('keeps the num_ctx within the model maximum', () => {
    const plan = planContext({ loaded: true, modelMax: 40_960, promptTokens: 36_000, loadedContext: 4096 });
    expect(plan.numCtx).toBe(40_960);
  });

  it('leaves a model loaded at its maximum alone even when the answer reserve does not fit', () => {
    const plan = planContext({ loaded: true, modelMax: 40_960, promptTokens: 39_000, loadedContext: 40_960 });
    expect(plan).toEqual({ window: 40_960, description: "fits at the model's maximum 40960" });
  });

  it('never changes a num_ctx the client set, even below the need', () => {
    const plan = planContext({ ...hot, promptTokens: 26_000, clientNumCtx: 8192, loadedContext: 4096 });
    expect(plan).toEqual({ window: 8192, description: 'client num_ctx=8192' });
  });

  it('asks for room when a model that is not loaded would load with the default context', () => {
    expect(planContext({ loaded: false, modelMax: 131_072, promptTokens: 10_000 })).toEqual({
      numCtx: 16_384,
      window: 16_384,
      description: 'num_ctx=16384 (not loaded)',
    });
    expect(planContext({ loaded: false, modelMax: 131_072, promptTokens: 1000, numPredict: 256 })).toEqual({
      window: 4096,
      description: 'fits (not loaded)',
    });
  });

  it('treats a loaded model whose context is not reported like one loading with the default', () => {
    const plan = planContext({ loaded: true, modelMax: 131_072, promptTokens: 10_000, numPredict: 100 });
    expect(plan.description).toBe('num_ctx=16384 (loaded context unknown)');
  });

  it('runs a prompt over the model maximum at that maximum', () => {
    const plan = planContext({ loaded: true, modelMax: 4096, promptTokens: 5000, loadedContext: 2048 });
    expect(plan).toEqual({ numCtx: 4096, window: 4096, description: 'num_ctx=4096 (loaded 2048)' });
  });
});
