/**
 * Per-application limits on requests in flight (issue 43, `FLEET_APP_LIMITS`): an application over its
 * limit is answered 429 with Retry-After, in the family's shape, before anything is queued or sent. In
 * flight is from the dispatch's start to the end of the answer — waiting for a slot and running both count —
 * and counted on this instance (docs/configuration.md states the bound across instances: N instances admit
 * up to N × the limit). The router's own work (no claim) is never limited. Holds state; no I/O.
 */
import { TooManyRequestsError } from '../../core/errors';
import { limitOf, type SharingPolicy } from '../../core/queue/sharing-policy';
import type { WaitClaim } from '../../core/queue/wait-line';

export interface AppLimits {
  /**
   * Counts a request of `claim`'s application in; throws a 429 when that would pass its limit. Returns
   * the function that counts it out (call it once, however the request ends), or undefined when nothing
   * was counted (no limit applies).
   */
  enter(claim: WaitClaim | undefined): (() => void) | undefined;
  /** Requests in flight per limited application. */
  inFlight(): ReadonlyMap<string, number>;
}

/** What a client is told to wait before trying again: a request of its own ends by then, or it asks again. */
const RETRY_AFTER_SECONDS = 1;

export function createAppLimits(policy: Pick<SharingPolicy, 'limits'>): AppLimits {
  const counts = new Map<string, number>();
  return {
    enter(claim) {
      if (claim === undefined || policy.limits.size === 0) return undefined;
      const limit = limitOf(policy, claim.app);
      if (limit === undefined) return undefined;
      const running = counts.get(claim.app) ?? 0;
      if (running >= limit) {
        throw new TooManyRequestsError(
          `application '${claim.app}' already has ${running} requests in flight, its limit (FLEET_APP_LIMITS)`,
          RETRY_AFTER_SECONDS,
          'app_limit_reached',
        );
      }
      counts.set(claim.app, running + 1);
      let left = false;
      return () => {
        if (left) return;
        left = true;
        const now = (counts.get(claim.app) ?? 1) - 1;
        if (now <= 0) counts.delete(claim.app);
        else counts.set(claim.app, now);
      };
    },
    inFlight: () => counts,
  };
}
