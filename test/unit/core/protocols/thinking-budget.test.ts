import { describe, expect, it } from '@jest/globals';
import * as fc from 'fast-check';
import {
  raiseThinkingBudget,
  THINKING_ALLOWANCE_FACTOR,
  THINKING_MIN_ALLOWANCE,
} from '../../../../lib/core/protocols/thinking-budget';
import { assertProperty } from '../stream/chunkings';

describe('raiseThinkingBudget', () => {
  it.each([
    [1, 1025],
    [100, 1124],
    [341, 1365],
    [342, 1368],
    [1000, 4000],
    [8192, 32768],
  ])('raises %i to %i', (budget, raised) => {
    expect(raiseThinkingBudget(budget)).toBe(raised);
  });

  it.each([0, -1, -2])('passes %i through', (budget) => {
    expect(raiseThinkingBudget(budget)).toBe(budget);
  });

  it('always leaves the whole answer budget after the allowed thinking', () => {
    assertProperty(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (budget) => {
        const allowance = Math.max(THINKING_ALLOWANCE_FACTOR * budget, THINKING_MIN_ALLOWANCE);
        expect(raiseThinkingBudget(budget) - allowance).toBe(budget);
      }),
    );
  });
});
