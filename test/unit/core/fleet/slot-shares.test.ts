import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { slotShares } from '../../../../lib/core/fleet/slot-shares';

const asObject = (shares: Map<string, number>) => Object.fromEntries(shares);

describe('slotShares', () => {
  it('gives a lone instance the whole limit, whatever its demand', () => {
    expect(asObject(slotShares(4, [{ id: 'a', demand: 0 }], 0))).toEqual({ a: 4 });
    expect(asObject(slotShares(4, [{ id: 'a', demand: 9 }], 7))).toEqual({ a: 4 });
  });

  it('splits evenly between instances that all want more than their part, however much more', () => {
    const shares = slotShares(
      4,
      [
        { id: 'b', demand: 30 },
        { id: 'a', demand: 5 },
      ],
      0,
    );

    expect(asObject(shares)).toEqual({ a: 2, b: 2 });
  });

  it('gives an instance no more than it wants while another wants more, and the rest to the other', () => {
    const shares = slotShares(
      4,
      [
        { id: 'a', demand: 1 },
        { id: 'b', demand: 6 },
      ],
      0,
    );

    expect(asObject(shares)).toEqual({ a: 1, b: 3 });
  });

  it('gives nothing to an idle instance while another has demand', () => {
    const shares = slotShares(
      4,
      [
        { id: 'a', demand: 0 },
        { id: 'b', demand: 1 },
      ],
      0,
    );

    expect(asObject(shares)).toEqual({ a: 0, b: 4 });
  });

  it('splits evenly between instances that are all idle', () => {
    const shares = slotShares(
      4,
      [
        { id: 'a', demand: 0 },
        { id: 'b', demand: 0 },
      ],
      3,
    );

    expect(asObject(shares)).toEqual({ a: 2, b: 2 });
  });

  it('hands one slot between two demanding instances in turn, round by round', () => {
    const claimants = [
      { id: 'a', demand: 3 },
      { id: 'b', demand: 3 },
    ];

    expect(asObject(slotShares(1, claimants, 10))).toEqual({ a: 1, b: 0 });
    expect(asObject(slotShares(1, claimants, 11))).toEqual({ a: 0, b: 1 });
  });

  it('computes the same split whatever order the claimants come in', () => {
    const one = slotShares(
      3,
      [
        { id: 'c', demand: 2 },
        { id: 'a', demand: 5 },
        { id: 'b', demand: 1 },
      ],
      4,
    );
    const other = slotShares(
      3,
      [
        { id: 'a', demand: 5 },
        { id: 'b', demand: 1 },
        { id: 'c', demand: 2 },
      ],
      4,
    );

    expect(asObject(one)).toEqual(asObject(other));
  });

  const claimantsArbitrary = fc.uniqueArray(
    fc.record({ id: fc.string({ minLength: 1, maxLength: 6 }), demand: fc.nat({ max: 40 }) }),
    { minLength: 1, maxLength: 8, selector: (claimant) => claimant.id },
  );

  it('gives whole, non-negative shares that add up to the limit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        claimantsArbitrary,
        fc.nat({ max: 1000 }),
        (limit, claimants, round) => {
          const shares = [...slotShares(limit, claimants, round).values()];

          expect(shares).toHaveLength(claimants.length);
          for (const share of shares) {
            expect(Number.isInteger(share)).toBe(true);
            expect(share).toBeGreaterThanOrEqual(0);
          }
          expect(shares.reduce((sum, share) => sum + share, 0)).toBe(limit);
        },
      ),
    );
  });

  it('gives every demanding instance a slot within ⌈demanding / limit⌉ rounds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        claimantsArbitrary,
        fc.nat({ max: 1000 }),
        (limit, claimants, first) => {
          const demanding = claimants.filter((claimant) => claimant.demand > 0);
          const rounds = Math.max(1, Math.ceil(demanding.length / limit));
          const served = new Set<string>();
          for (let round = first; round < first + rounds; round += 1) {
            for (const [id, share] of slotShares(limit, claimants, round)) if (share > 0) served.add(id);
          }

          for (const claimant of demanding) expect(served.has(claimant.id)).toBe(true);
        },
      ),
    );
  });
});
