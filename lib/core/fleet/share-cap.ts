/**
 * How many requests one instance may run on a node:model that other instances route to as well
 * (issue 25 item 2; ARCHITECTURE.md §3.6): its cap, from what the others last published through the
 * table and its own demand now. Pure; ./slot-shares computes the split it starts from.
 *
 * The rule, for instance X and the other instances Y that want the node:model (waiting or running there):
 *
 *   cap(X) = min( share(X), limit − Σ_Y max(inFlight(Y), share(Y)) )
 *
 * - `share` is the max-min fair split every instance computes alike from the same published demands,
 *   rotating when more instances want the node than it has slots (./slot-shares). The shares add up to
 *   the limit.
 * - X leaves every other instance both what it still runs and what it is due. So when the split moves,
 *   the instance that gains waits until it has seen the one that loses finish (that one publishes a
 *   freed slot at once: lib/services/dispatch/queue-publisher); nobody's running request is cut.
 * - Hence, when every instance decides from the same counts, the node runs at most its limit: an
 *   instance that grows grows only into slots no other instance runs or is due. What the counts may
 *   miss (a request another instance began after its last publication) is ARCHITECTURE.md §3.6's worst
 *   case.
 *
 * When no other instance wants the node:model there is nothing to share (`undefined`): the instance
 * runs the whole limit, exactly as one instance alone, and its requests never wait for the table.
 */
import { slotShares } from './slot-shares';

/** What another live instance last published for the node:model. */
export interface PeerDemand {
  readonly id: string;
  readonly pending: number;
  readonly inFlight: number;
}

export interface ShareCapInput {
  readonly limit: number;
  readonly selfId: string;
  /** This instance's pending + in flight now (plus a request about to ask). */
  readonly selfDemand: number;
  readonly peers: readonly PeerDemand[];
  /** The rotation round every instance derives alike from the clock. */
  readonly round: number;
}

/** This instance's cap; `undefined` when no other instance wants the node:model (the whole limit). */
export function shareCap(input: ShareCapInput): number | undefined {
  const claimants = [{ id: input.selfId, demand: input.selfDemand }];
  const wanting: PeerDemand[] = [];
  for (const peer of input.peers) {
    const demand = peer.pending + peer.inFlight;
    if (demand <= 0) continue;
    claimants.push({ id: peer.id, demand });
    wanting.push(peer);
  }
  if (wanting.length === 0) return undefined;
  const shares = slotShares(input.limit, claimants, input.round);
  let held = 0;
  for (const peer of wanting) held += Math.max(peer.inFlight, shares.get(peer.id) ?? 0);
  return Math.max(0, Math.min(shares.get(input.selfId) ?? 0, input.limit - held));
}
