import { describe, expect, it } from '@jest/globals';
import {
  type BenchmarkRun,
  benchmarkRunId,
  benchmarkRunView,
  isBenchmarkRunId,
  MAX_BENCHMARK_DURATION_S,
  parseBenchmarkStart,
} from '../../../../lib/core/benchmarks/benchmark-run';
import { BadRequestError } from '../../../../lib/core/errors';

function paramOf(body: unknown): string | undefined {
  try {
    parseBenchmarkStart(body);
  } catch (error) {
    if (error instanceof BadRequestError) return error.param;
    throw error;
  }
  return 'accepted';
}

describe('parseBenchmarkStart', () => {
  it("takes the reference's defaults from an empty body", () => {
    expect(parseBenchmarkStart(undefined)).toEqual({ mode: 'default', duration: 300, modelTypes: ['llm'] });
  });

  it('keeps each model type once', () => {
    expect(parseBenchmarkStart({ duration: 3, model_types: ['llm', 'embed', 'llm', 'image'] })).toEqual({
      mode: 'default',
      duration: 3,
      modelTypes: ['llm', 'embed', 'image'],
    });
  });

  it('bounds the duration by what one Lambda invocation can hold', () => {
    expect(paramOf({ duration: MAX_BENCHMARK_DURATION_S })).toBe('accepted');
    expect(paramOf({ duration: MAX_BENCHMARK_DURATION_S + 1 })).toBe('duration');
    expect(MAX_BENCHMARK_DURATION_S + 30).toBeLessThan(900);
  });

  it.each([
    [{ duration: '60' }, 'duration'],
    [{ duration: -1 }, 'duration'],
    [{ mode: 'fast' }, 'mode'],
    [{ model_types: 'llm' }, 'model_types'],
    [{ model_types: ['llm', 'vision'] }, 'model_types'],
  ])('refuses %j naming %s', (body, param) => {
    expect(paramOf(body)).toBe(param);
  });
});

describe('benchmark run ids', () => {
  it('sort by start time as text', () => {
    const ids = [benchmarkRunId(999_999_999_999, 'b'), benchmarkRunId(1_795_000_000_000, 'a')];

    expect([...ids].sort()).toEqual(ids);
    expect(ids.every(isBenchmarkRunId)).toBe(true);
    expect(isBenchmarkRunId('bench-1#2')).toBe(false);
  });
});

describe('benchmarkRunView', () => {
  const run = { status: 'running', updated_at: '2026-11-26T00:00:00.000Z', error: null } as BenchmarkRun;
  const at = (iso: string) => Date.parse(iso);

  it('reports a running run as it is while its runner keeps writing', () => {
    expect(benchmarkRunView(run, at('2026-11-26T00:00:30.000Z'))).toBe(run);
  });

  it('reports a running run whose runner stopped writing as an error', () => {
    expect(benchmarkRunView(run, at('2026-11-26T00:00:31.000Z'))).toMatchObject({
      status: 'error',
      error: expect.stringContaining('stopped reporting'),
    });
  });
});
