import { describe, expect, it } from '@jest/globals';
import { createPrefixResidency } from '../../../../lib/services/dispatch/prefix-residency';

describe('createPrefixResidency', () => {
  it('expects the prompt held while fewer other requests than slots came since, then less and less', () => {
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

  it('expects nothing on another node or model, for an unknown conversation, or once it moved', () => {
    const residency = createPrefixResidency();
    residency.served('c1', 'a', 'm');
    expect(residency.likelihood('c1', 'b', 'm', 4)).toBe(0);
    expect(residency.likelihood('c1', 'a', 'other', 4)).toBe(0);
    expect(residency.likelihood('c9', 'a', 'm', 4)).toBe(0);
    residency.served('c1', 'b', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 4)).toBe(0);
    expect(residency.likelihood('c1', 'b', 'm', 4)).toBe(1);
  });

  it('forgets the oldest conversation beyond its bound', () => {
    const residency = createPrefixResidency(2);
    residency.served('c1', 'a', 'm');
    residency.served('c2', 'a', 'm');
    residency.served('c3', 'a', 'm');
    expect(residency.likelihood('c1', 'a', 'm', 8)).toBe(0);
    expect(residency.likelihood('c3', 'a', 'm', 8)).toBe(1);
  });
});
