import { describe, expect, it } from '@jest/globals';
import { sharingVerdicts, type VariantFigures } from '../../../../bench/routing/sharing';

const figures = (variant: VariantFigures['variant'], overrides: Partial<VariantFigures>): VariantFigures => ({
  variant,
  interactiveRequests: 100,
  interactiveOk: 100,
  interactiveTtftP50: 50,
  interactiveTtftP95: 200,
  batchCompleted: 0,
  batchRefused: 0,
  batchTokensPerSecond: 0,
  utilisation: 0.3,
  ...overrides,
});

describe('sharingVerdicts', () => {
  it('passes within 1.5× with priorities, 80 % of what the trace leaves, and 3× with the fair share alone', () => {
    const verdicts = sharingVerdicts([
      figures('interactive alone', { interactiveTtftP95: 200, utilisation: 0.25 }),
      figures('batch alone', { batchTokensPerSecond: 1000 }),
      figures('priorities', { interactiveTtftP95: 300, batchTokensPerSecond: 600 }),
      figures('fair share', { interactiveTtftP95: 600 }),
      figures('fcfs', { interactiveTtftP95: 900 }),
    ]);

    expect(verdicts.map((verdict) => verdict.pass)).toEqual([true, true, true]);
    // 1000 tok/s alone × 75 % of slot time free = 750; 600 is 80 % of it.
    expect(verdicts[1]?.text).toContain('600.0 output tokens/s vs 750.0 the trace leaves');
    expect(verdicts[2]?.text).toContain('first come, first served: 900 ms (4.5×)');
  });

  it('fails each goal just past its bound', () => {
    const verdicts = sharingVerdicts([
      figures('interactive alone', { interactiveTtftP95: 200, utilisation: 0.25 }),
      figures('batch alone', { batchTokensPerSecond: 1000 }),
      figures('priorities', { interactiveTtftP95: 301, batchTokensPerSecond: 599 }),
      figures('fair share', { interactiveTtftP95: 601 }),
    ]);

    expect(verdicts.map((verdict) => verdict.pass)).toEqual([false, false, false]);
  });

  it('decides nothing when a variant is missing', () => {
    expect(sharingVerdicts([figures('interactive alone', {})])).toEqual([
      { goal: 'sharing', pass: undefined, text: 'a variant did not run' },
    ]);
  });
});
