import { describe, expect, it } from '@jest/globals';
import { createPrefillLedger, leftAt } from '../../../../lib/services/dispatch/prefill-ledger';

/** 1,000 tokens a second: one token a millisecond. */
const TPS = 1000;

describe('leftAt', () => {
  it('runs one prompt at the full rate and stops at nothing left', () => {
    expect(leftAt([{ tokens: 500, startsAt: 0 }], 1, 200)).toEqual([300]);
    expect(leftAt([{ tokens: 500, startsAt: 0 }], 1, 900)).toEqual([0]);
  });

  it('shares the rate evenly while prompts overlap, and gives it all to the one left', () => {
    // 0–100 ms: A alone (100 done); 100–300 ms: A and B at half each (100 each); then B alone.
    const prompts = [
      { tokens: 200, startsAt: 0 },
      { tokens: 1000, startsAt: 100 },
    ];
    expect(leftAt(prompts, 1, 300)).toEqual([0, 900]);
    expect(leftAt(prompts, 1, 400)).toEqual([0, 800]);
  });

  it('leaves a prompt whose start is still to come (its model loading) whole', () => {
    const prompts = [
      { tokens: 100, startsAt: 0 },
      { tokens: 400, startsAt: 500 },
    ];
    expect(leftAt(prompts, 1, 250)).toEqual([0, 400]);
  });
});

describe('createPrefillLedger', () => {
  it('counts what is ahead of a newcomer as the tokens it shares the node with, up to its own', () => {
    const ledger = createPrefillLedger();
    ledger.begin('a', 'm', 3000, 0);
    ledger.begin('a', 'm', 200, 0);
    // At 100 ms each has had 50 tokens: 2,950 and 150 left; a newcomer of 1,000 shares 1,000 + 150.
    expect(ledger.ahead('a', 'm', 1000, TPS, 100)).toBeCloseTo(1150, 6);
    // Other nodes and models share nothing with it.
    expect(ledger.ahead('b', 'm', 1000, TPS, 100)).toBe(0);
    expect(ledger.ahead('a', 'other', 1000, TPS, 100)).toBe(0);
  });

  it('forgets a prompt at its first byte, once, and never counts one past its end as negative', () => {
    const ledger = createPrefillLedger();
    const first = ledger.begin('a', 'm', 1000, 0);
    const second = ledger.begin('a', 'm', 1000, 0);
    first();
    first();
    expect(ledger.ahead('a', 'm', 500, TPS, 0)).toBe(500);
    // Long past its expected end and still no first byte: nothing more is ahead.
    expect(ledger.ahead('a', 'm', 500, TPS, 10_000)).toBe(0);
    second();
    expect(ledger.ahead('a', 'm', 500, TPS, 0)).toBe(0);
  });

  it('keeps prompts in the order they start whatever order they were sent in', () => {
    const ledger = createPrefillLedger();
    ledger.begin('a', 'm', 1000, 400);
    ledger.begin('a', 'm', 100, 0);
    // 0–100 ms: the short one alone; the long one starts at 400 ms and has had 100 ms of the node.
    expect(ledger.ahead('a', 'm', 5000, TPS, 500)).toBeCloseTo(900, 6);
  });

  it('notes nothing for a prompt with nothing to evaluate', () => {
    const ledger = createPrefillLedger();
    ledger.begin('a', 'm', 0, 0)();
    expect(ledger.ahead('a', 'm', 100, TPS, 0)).toBe(0);
  });
});
