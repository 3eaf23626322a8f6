/**
 * How many requests one instance may run on a node:model it shares with other instances (issue 25
 * item 2; ARCHITECTURE.md §3.6): its cap, from what every live instance last published through the
 * table and its own demand now. Pure; ./slot-shares computes the split it starts from.
 *
 * The rule, for instance X with the others Y:
 *
 *   cap(X) = min( share(X),
 *                 limit − Σ_Y max(claim(Y), inFlight(Y), share(Y)),
 *                 seenClaim(X) + 1 )
 *
 * - `share` is the split every instance computes alike (./slot-shares).
 * - A slot another instance gave up is used only once that instance has been seen, in its published
 *   counts, back within its share: X counts each Y at the most of what Y last claimed (the cap it
 *   published), what Y still runs, and what Y is due. So when the split moves, the instance that gains
 *   waits for the one that loses to drain and say so; nobody's running request is cut.
 * - X grows at most one slot beyond the claim of its own it has read back from the table — what the
 *   others can have read too — so two instances that each see the other's old, smaller claim at once
 *   overshoot by one request each at most, not by their whole shares.
 *
 * Alone — no other live instance — the cap is the whole limit with none of this (`undefined`: the
 * instance does not share), exactly as one instance was before.
 */
import { slotShares } from './slot-shares';

/** What one other live instance last published for the node:model (zeros when it has no entry). */
export interface PeerClaim {
  readonly id: string;
  readonly pending: number;
  readonly inFlight: number;
  /** The most it let itself run when it published. */
  readonly claim: number;
}

export interface ShareCapInput {
  readonly limit: number;
  readonly selfId: string;
  /** This instance's pending + in flight now. */
  readonly selfDemand: number;
  /** This instance's own claim as last read back from the table; 0 before it has been. */
  readonly seenClaim: number;
  readonly peers: readonly PeerClaim[];
  readonly round: number;
}

/** This instance's cap; `undefined` when no other instance is live (the whole limit, unshared). */
export function shareCap(input: ShareCapInput): number | undefined {
  if (input.peers.length === 0) return undefined;
  const claimants = [
    { id: input.selfId, demand: input.selfDemand },
    ...input.peers.map((peer) => ({ id: peer.id, demand: peer.pending + peer.inFlight })),
  ];
  const shares = slotShares(input.limit, claimants, input.round);
  let held = 0;
  for (const peer of input.peers) held += Math.max(peer.claim, peer.inFlight, shares.get(peer.id) ?? 0);
  const own = shares.get(input.selfId) ?? 0;
  return Math.max(0, Math.min(own, input.limit - held, input.seenClaim + 1));
}
