import { describe, expect, it } from '@jest/globals';
import { parseSharingPolicy } from '../../../../lib/core/queue/sharing-policy';
import { createAppLimits } from '../../../../lib/services/dispatch/app-limits';

describe('createAppLimits', () => {
  const policy = parseSharingPolicy({ limits: ['tag:nightly=2', '*=3'] });

  it('admits an application up to its limit, then answers 429 with Retry-After until one of its requests ends', () => {
    const limits = createAppLimits(policy);
    const claim = { priority: 'low', app: 'tag:nightly' } as const;

    const first = limits.enter(claim);
    const second = limits.enter(claim);
    let refused: unknown;
    try {
      limits.enter(claim);
    } catch (error) {
      refused = error;
    }
    first?.();
    first?.();
    const third = limits.enter(claim);

    expect(refused).toMatchObject({ status: 429, code: 'app_limit_reached', retryAfterSeconds: 1, retryable: true });
    expect(String((refused as Error).message)).toContain("application 'tag:nightly' already has 2 requests in flight");
    expect(third).toBeDefined();
    expect(limits.inFlight().get('tag:nightly')).toBe(2);
    second?.();
    third?.();
    expect(limits.inFlight().has('tag:nightly')).toBe(false);
  });

  it("holds other applications to the wildcard's limit, each on its own, and never the router's own work", () => {
    const limits = createAppLimits(policy);
    for (let index = 0; index < 3; index += 1) limits.enter({ priority: 'normal', app: 'tag:a' });

    expect(() => limits.enter({ priority: 'normal', app: 'tag:a' })).toThrow(/limit/);
    expect(limits.enter({ priority: 'normal', app: 'tag:b' })).toBeDefined();
    expect(limits.enter(undefined)).toBeUndefined();
  });

  it('counts nothing when no limit is set', () => {
    const limits = createAppLimits(parseSharingPolicy({}));

    expect(limits.enter({ priority: 'normal', app: 'tag:a' })).toBeUndefined();
    expect(limits.inFlight().size).toBe(0);
  });
});
