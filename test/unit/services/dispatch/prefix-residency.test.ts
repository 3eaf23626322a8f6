import { describe, expect, it } from '@jest/globals';
import { createPrefixResidency } from '../../../../lib/services/dispatch/prefix-residency';

describe('createPrefixResidency', () => {
  it('expects the prompt held while fewer other conversations than slots came since, then less and less', () => {
    const residency = createPrefixResidency();
    residency.served('c1', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBe(1);
    residency.served('c2', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBe(1);
    residency.served(undefined, 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBeCloseTo(2 / 3, 10);
    for (let other = 0; other < 7; other += 1) residency.served(undefined, 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBeCloseTo(2 / 10, 10);
  });

  it('does not count the turns of a conversation already held as pushing another out', () => {
    const residency = createPrefixResidency();
    residency.served('c1', 'a', 'm');
    for (let turn = 0; turn < 10; turn += 1) residency.served('c2', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBe(1);
    residency.served('c3', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBeCloseTo(2 / 3, 10);
    residency.served('c1', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 2)).toBe(1);
    expect(residency.likelihood('c3', 'a', 'm', 2)).toBe(1);
    expect(residency.likelihood('c2', 'a', 'm', 2)).toBeCloseTo(2 / 3, 10);
    residency.served('c4', 'a', 'm');
    expect(residency.likelihood('c3', 'a', 'm', 2)).toBeCloseTo(2 / 3, 10);
    expect(residency.likelihood('c2', 'a', 'm', 2)).toBeCloseTo(2 / 4, 10);
  });

  it('counts a conversation pushed past the per-node bound as nearly gone', () => {
    const residency = createPrefixResidency(4000, 3);
    residency.served('c1', 'a', 'm');
    for (const other of ['c2', 'c3', 'c4']) residency.served(other, 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 1)).toBeCloseTo(1 / 4, 10);
    expect(residency.likelihood('c4', 'a', 'm', 1)).toBe(1);
  });

  it('expects nothing on another node or model or once it moved, and knows nothing of a conversation it never sent', () => {
    const residency = createPrefixResidency();
    residency.served('c1', 'a', 'm');
    expect(residency.likelihood('c1', 'b', 'm', 4)).toBe(0);
    expect(residency.likelihood('c1', 'a', 'other', 4)).toBe(0);
    expect(residency.likelihood('c9', 'a', 'm', 4)).toBeUndefined();
    residency.served('c1', 'b', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 4)).toBe(0);
    expect(residency.likelihood('c1', 'b', 'm', 4)).toBe(1);
  });

  it('forgets the oldest conversation beyond its bound', () => {
    const residency = createPrefixResidency(2);
    residency.served('c1', 'a', 'm');
    residency.served('c2', 'a', 'm');
    residency.served('c3', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 8)).toBeUndefined();
    expect(residency.likelihood('c3', 'a', 'm', 8)).toBe(1);
  });
});
