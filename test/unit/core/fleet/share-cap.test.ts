import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type PeerDemand, type ShareCapInput, shareCap } from '../../../../lib/core/fleet/share-cap';

const peer = (id: string, pending: number, inFlight: number): PeerDemand => ({ id, pending, inFlight });

const input = (overrides: Partial<ShareCapInput>): ShareCapInput => ({
  limit: 4,
  selfId: 'a',
  selfDemand: 6,
  peers: [],
  round: 0,
  ...overrides,
});

describe('shareCap', () => {
  it('leaves an instance unshared when no other wants the node: the whole limit, as alone', () => {
    expect(shareCap(input({ peers: [] }))).toBeUndefined();
    expect(shareCap(input({ peers: [peer('b', 0, 0)] }))).toBeUndefined();
  });

  it('splits a node two instances both load evenly', () => {
    expect(shareCap(input({ peers: [peer('b', 4, 2)] }))).toBe(2);
  });

  it('leaves another instance the slots it still runs, whatever the split says', () => {
    // b is due 2 but still runs all 4: a may use none of the 2 it gains yet.
    expect(shareCap(input({ peers: [peer('b', 2, 4)] }))).toBe(0);
    // b has drained to 3: one of a's slots is free.
    expect(shareCap(input({ peers: [peer('b', 3, 3)] }))).toBe(1);
  });

  it('keeps the share of an instance that asks for slots free for it, before it runs any', () => {
    expect(shareCap(input({ peers: [peer('b', 5, 0)] }))).toBe(2);
  });

  it('gives a lightly loaded instance what it asks and the other the rest', () => {
    expect(shareCap(input({ selfDemand: 1, peers: [peer('b', 6, 0)] }))).toBe(1);
    expect(shareCap(input({ selfDemand: 6, peers: [peer('b', 0, 1)] }))).toBe(3);
  });

  it('hands a single slot between two loaded instances round by round', () => {
    const caps = [0, 1, 2, 3].map((round) =>
      shareCap(input({ limit: 1, selfDemand: 3, peers: [peer('b', 3, 0)], round })),
    );
    expect(caps.sort()).toEqual([0, 0, 1, 1]);
  });

  it('gives nothing to an idle instance while another wants the node', () => {
    expect(shareCap(input({ selfDemand: 0, peers: [peer('b', 3, 1)] }))).toBe(0);
  });

  /**
   * The rule's promise: instances that all decide from the same counts never run the node past its
   * limit. Each admits waiters up to its cap; nothing running is cut.
   */
  it('never takes the node past its limit when every instance decides from the same counts', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(fc.nat({ max: 6 }), fc.nat({ max: 8 })), { minLength: 2, maxLength: 5 }),
        fc.nat({ max: 20 }),
        (limit, states, round) => {
          // In flight within the limit to begin with (as it is once every instance keeps the rule).
          let room = limit;
          const instances = states.map(([running, pending], index) => {
            const inFlight = Math.min(running, room);
            room -= inFlight;
            return { id: `i${index}`, inFlight, pending };
          });
          const after = instances.map((self) => {
            const cap = shareCap({
              limit,
              selfId: self.id,
              selfDemand: self.inFlight + self.pending,
              peers: instances
                .filter((other) => other !== self)
                .map((other) => peer(other.id, other.pending, other.inFlight)),
              round,
            });
            const allowed = cap ?? limit;
            return self.inFlight + Math.min(self.pending, Math.max(0, allowed - self.inFlight));
          });
          expect(after.reduce((sum, running) => sum + running, 0)).toBeLessThanOrEqual(limit);
        },
      ),
    );
  });

  it('is never negative and never above the limit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.nat({ max: 20 }),
        fc.array(fc.tuple(fc.nat({ max: 10 }), fc.nat({ max: 10 })), { minLength: 1, maxLength: 4 }),
        (limit, selfDemand, peers) => {
          const cap = shareCap(
            input({
              limit,
              selfDemand,
              peers: peers.map(([pending, inFlight], index) => peer(`p${index}`, pending, inFlight)),
            }),
          );
          if (cap !== undefined) {
            expect(cap).toBeGreaterThanOrEqual(0);
            expect(cap).toBeLessThanOrEqual(limit);
          }
        },
      ),
    );
  });
});
