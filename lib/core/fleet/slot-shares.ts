/**
 * How the router's instances divide one node:model's slots between them (issue 25 item 2;
 * ARCHITECTURE.md §3.6). Every instance computes the same split from the same published counts, so no
 * instance has to ask the others: the instance ids sorted, each one's demand (pending + in flight), and
 * the rotation round (the clock divided by a period every instance shares). Pure.
 *
 * The split is max-min fair rather than proportional: slots are dealt one at a time, in turn, to the
 * instances that still want more than they hold, starting at an instance that rotates with the round.
 * While every instance wants more than its equal part — a loaded node — the shares stay put however
 * the queues' lengths move, and shares that stay put are shares every instance agrees on, which is what
 * keeps the node within its limit (./share-cap). Proportional shares would move with every arrival.
 *
 * - Shares are whole, never negative, and add up to `limit` whenever there is a claimant.
 * - Instances with no demand get nothing while any instance has some; when none has, the slots are
 *   split evenly between all of them (./share-cap never asks then: it splits only a node another
 *   instance wants).
 * - With more demanding instances than slots, the `limit` slots go to `limit` of them in turn: the
 *   round moves the starting instance on by `limit`, so each demanding instance holds a slot within
 *   ⌈demanding / limit⌉ rounds.
 */

export interface SlotClaimant {
  /** The instance's id (a Lambda container, an emulator process). */
  readonly id: string;
  /** Requests it has waiting or running on the node:model. */
  readonly demand: number;
}

/** Each claimant's share of `limit` slots in `round`, by id. */
export function slotShares(limit: number, claimants: readonly SlotClaimant[], round: number): Map<string, number> {
  const shares = new Map<string, number>();
  const ids = claimants.map((claimant) => claimant.id).sort();
  const demandOf = new Map(claimants.map((claimant) => [claimant.id, claimant.demand]));
  for (const id of ids) shares.set(id, 0);
  if (ids.length === 0 || limit <= 0) return shares;
  const demanding = ids.filter((id) => (demandOf.get(id) ?? 0) > 0);
  // Nobody asks: an even split, so each already holds its part when a burst comes.
  const pool = demanding.length > 0 ? demanding : ids;
  const wants = (id: string) => (demanding.length > 0 ? (demandOf.get(id) ?? 0) : Number.POSITIVE_INFINITY);
  // Each round starts `limit` instances further on: the next `limit` in turn hold the slots.
  const start = (((Math.floor(round) * limit) % pool.length) + pool.length) % pool.length;
  let left = limit;
  // First the instances that still want more than they hold, in turn; what is left after every want
  // is met goes round all of the pool the same way.
  for (const satisfiedToo of [false, true]) {
    let dealt = true;
    while (left > 0 && dealt) {
      dealt = false;
      for (let step = 0; step < pool.length && left > 0; step += 1) {
        const id = pool[(start + step) % pool.length] as string;
        const held = shares.get(id) ?? 0;
        if (!satisfiedToo && held >= wants(id)) continue;
        shares.set(id, held + 1);
        left -= 1;
        dealt = true;
      }
    }
  }
  return shares;
}
