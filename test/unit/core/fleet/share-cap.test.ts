import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type PeerClaim, type ShareCapInput, shareCap } from '../../../../lib/core/fleet/share-cap';

const peer = (id: string, pending: number, inFlight: number, claim: number): PeerClaim => ({
  id,
  pending,
  inFlight,
  claim,
});

const input = (overrides: Partial<ShareCapInput>): ShareCapInput => ({
  limit: 4,
  selfId: 'a',
  selfDemand: 6,
  seenClaim: 4,
  peers: [],
  round: 0,
  ...overrides,
});

describe('shareCap', () => {
  it('leaves a lone instance unshared: the whole limit, as before', () => {
    expect(shareCap(input({ peers: [], seenClaim: 0 }))).toBeUndefined();
  });

  it('caps an instance at its share once the other is within its own', () => {
    expect(shareCap(input({ peers: [peer('b', 4, 2, 2)] }))).toBe(2);
  });

  it('waits for an instance that gave slots up to be seen back within its share', () => {
    // b is due 2 but still claims (and runs) all 4: a may use none of the 2 it gains yet.
    expect(shareCap(input({ peers: [peer('b', 2, 4, 4)] }))).toBe(0);
    // b has drained to 3: one of a's slots is free.
    expect(shareCap(input({ peers: [peer('b', 3, 3, 2)] }))).toBe(1);
  });

  it('grows at most one slot beyond the least claim the others may still see', () => {
    expect(shareCap(input({ peers: [peer('b', 0, 0, 0)], seenClaim: 0 }))).toBe(1);
    expect(shareCap(input({ peers: [peer('b', 0, 0, 0)], seenClaim: 2 }))).toBe(3);
  });

  it('keeps the share of an instance that asks for slots free for it, even before it claims them', () => {
    // b asks and claims nothing yet: a holds back b's half.
    expect(shareCap(input({ peers: [peer('b', 5, 0, 0)] }))).toBe(2);
  });

  it('is never negative, never above the share or the limit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.nat({ max: 20 }),
        fc.nat({ max: 10 }),
        fc.array(fc.tuple(fc.nat({ max: 10 }), fc.nat({ max: 10 }), fc.nat({ max: 10 })), {
          minLength: 1,
          maxLength: 4,
        }),
        (limit, selfDemand, seenClaim, peers) => {
          const cap = shareCap(
            input({
              limit,
              selfDemand,
              seenClaim,
              peers: peers.map(([pending, inFlight, claim], index) => peer(`p${index}`, pending, inFlight, claim)),
            }),
          );

          expect(cap).toBeGreaterThanOrEqual(0);
          expect(cap).toBeLessThanOrEqual(limit);
          expect(cap).toBeLessThanOrEqual(seenClaim + 1);
        },
      ),
    );
  });

  it('keeps two instances that see each other alike within the limit together', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.nat({ max: 12 }),
        fc.nat({ max: 12 }),
        fc.nat({ max: 100 }),
        (limit, demandA, demandB, round) => {
          // Each has published its current claim and counts, and each has read the other's.
          const capA = shareCap({
            limit,
            selfId: 'a',
            selfDemand: demandA,
            seenClaim: limit,
            peers: [peer('b', demandB, 0, 0)],
            round,
          });
          const capB = shareCap({
            limit,
            selfId: 'b',
            selfDemand: demandB,
            seenClaim: limit,
            peers: [peer('a', demandA, 0, capA ?? limit)],
            round,
          });

          expect((capA ?? limit) + (capB ?? limit)).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });
});
