/**
 * A node's slots shared between the router's instances (issue 25 item 2; ARCHITECTURE.md §3.6). Every
 * instance publishes its queues through the table (./queue-publisher), each entry with its claim — the
 * most it lets itself run there. From the last read of every live instance's publication, this module
 * gives each of this instance's queues its cap (lib/core/fleet/share-cap), and the queue holds newcomers
 * back beyond it (./node-model-queue `setShare`).
 *
 * Nothing here is on a request's path: caps are re-computed when a read of the table lands, and on a
 * tick of its own that also re-reads the table — while another instance is live, or this one had work
 * within a publication's lifetime — so an idle instance learns of the others before a burst reaches it,
 * the rotation moves on, and a waiter is let in without a new request. A request only compares its
 * queue's count with the cap. Alone — no other live
 * instance — every queue runs its whole limit, as it did before there was sharing, without waiting for
 * the table. An instance whose last publication is older than the published state's TTL counts as
 * gone, also when the table cannot be read meanwhile. Holds state and a timer.
 */
import { type PeerClaim, shareCap } from '../../core/fleet/share-cap';
import type { NodeModelQueue, QueueManager, Schedule } from './queue-manager';

/** What an instance published for one node:model (lib/core/fleet/queue-entry's QueueState fits it). */
export interface PublishedClaim {
  readonly nodeId: string;
  readonly model: string;
  readonly pending: number;
  readonly inFlight: number;
  readonly concurrency: number;
  /** Its claim when it shared the node; absent: it ran up to `concurrency`. */
  readonly share?: number;
}

/** One live instance's last publication. */
export interface PublishedQueues {
  readonly instanceId: string;
  readonly at: number;
  readonly entries: readonly PublishedClaim[];
}

export interface SharedSlotsOptions {
  readonly instanceId: string;
  readonly queues: Pick<QueueManager, 'forEachQueue'>;
  /** Re-reads every instance's publication; the answer comes back through `update`. */
  readonly refresh: () => Promise<void>;
  /** True once the instance is shutting down: the tick stops (no more reads of a table going away). */
  readonly closed?: () => boolean;
  readonly clock?: () => number;
  readonly schedule?: Schedule;
  /** How often caps are re-computed and the table re-read while other instances are live (1 s). */
  readonly tickMs?: number;
  /** How long a rotation round lasts when more instances want a node than it has slots (4 s). */
  readonly rotationMs?: number;
  /** A publication older than this is an instance that stopped (the published state's TTL). */
  readonly maxAgeMs: number;
  /**
   * How old the others' view of this instance's claims can be (3 s): a publication waits up to a
   * second to go out, up to a second more in the write-behind queue, and each instance reads every
   * second. A claim this instance held within it may be the one another instance still sees.
   */
  readonly seenWithinMs?: number;
}

export interface SharedSlots {
  /** A read of every live instance's publication landed (this instance's own included). */
  update(instances: readonly PublishedQueues[]): void;
  /** Gives a queue made just now its cap before its first slot is taken (QueueManager's `onCreate`). */
  prepare(queue: NodeModelQueue): void;
  /**
   * A request started waiting in `queue` (QueueManager's `onWait`): its demand counts now, not at the
   * next tick. Only a queue that shares its node and holds its newcomers back gets here.
   */
  reconsider(queue: NodeModelQueue): void;
}

export const SHARE_TICK_MS = 1000;
export const ROTATION_MS = 4000;
export const SEEN_WITHIN_MS = 3000;

/** When a queue's claim changed to what (`claim`: its cap, or its limit while alone). */
interface ClaimChange {
  readonly at: number;
  readonly claim: number;
}

const realSchedule: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

const keyOf = (nodeId: string, model: string) => `${nodeId}\u0000${model}`;

export function createSharedSlots(options: SharedSlotsOptions): SharedSlots {
  const clock = options.clock ?? Date.now;
  const schedule = options.schedule ?? realSchedule;
  const tickMs = options.tickMs ?? SHARE_TICK_MS;
  const rotationMs = options.rotationMs ?? ROTATION_MS;
  let view: readonly PublishedQueues[] = [];
  /** node:model → instance id → what it published there, from `view`. */
  let byKey = new Map<string, Map<string, PublishedClaim>>();
  let ticking = false;
  const seenWithinMs = options.seenWithinMs ?? SEEN_WITHIN_MS;
  /** Each queue's recent claims, oldest first: the one in force `seenWithinMs` ago, and every later one. */
  const claims = new WeakMap<NodeModelQueue, ClaimChange[]>();

  /**
   * The smallest claim of this queue another instance may still see: the least it held within the last
   * `seenWithinMs` (0 while it was not yet published at all).
   */
  const seenClaim = (queue: NodeModelQueue, now: number): number => {
    const changes = claims.get(queue);
    if (changes === undefined) return 0;
    const since = now - seenWithinMs;
    while (changes.length > 1 && (changes[1] as ClaimChange).at <= since) changes.shift();
    let least = (changes[0] as ClaimChange).at <= since ? Number.POSITIVE_INFINITY : 0;
    for (const change of changes) least = Math.min(least, change.claim);
    return least;
  };

  const setShare = (queue: NodeModelQueue, share: number | undefined, now: number): void => {
    const before = queue.share;
    queue.setShare(share);
    if (queue.share === before && claims.has(queue)) return;
    const changes = claims.get(queue) ?? [];
    changes.push({ at: now, claim: share ?? queue.limit });
    claims.set(queue, changes);
  };

  const claimOf = (entry: PublishedClaim | undefined): number =>
    entry === undefined ? 0 : (entry.share ?? entry.concurrency);

  const capOf = (
    queue: NodeModelQueue,
    peers: readonly PublishedQueues[],
    now: number,
    coming = 0,
  ): number | undefined => {
    const published = byKey.get(keyOf(queue.nodeId, queue.model));
    const claims: PeerClaim[] = peers.map((peer) => {
      const entry = published?.get(peer.instanceId);
      return {
        id: peer.instanceId,
        pending: entry?.pending ?? 0,
        inFlight: entry?.inFlight ?? 0,
        claim: claimOf(entry),
      };
    });
    return shareCap({
      limit: queue.limit,
      selfId: options.instanceId,
      selfDemand: queue.depth + coming,
      seenClaim: seenClaim(queue, now),
      peers: claims,
      round: Math.floor(now / rotationMs),
    });
  };

  const livePeers = (now: number): PublishedQueues[] =>
    view.filter((published) => published.instanceId !== options.instanceId && now - published.at <= options.maxAgeMs);

  /** When a queue of this instance last had anything waiting or running. */
  let busyAt = Number.NEGATIVE_INFINITY;

  /** Re-computes every queue's cap; whether the tick should go on (another instance, or recent work). */
  const recompute = (): boolean => {
    const now = clock();
    const peers = livePeers(now);
    options.queues.forEachQueue((queue) => {
      if (queue.depth > 0) busyAt = now;
      setShare(queue, peers.length === 0 ? undefined : capOf(queue, peers, now), now);
    });
    return peers.length > 0 || now - busyAt <= options.maxAgeMs;
  };

  // An instance alone and idle for longer than a publication lives has nothing to learn: the tick
  // stops there, and its next queue or waiter starts it again.
  const tick = (): void => {
    if (options.closed?.() === true || !recompute()) {
      ticking = false;
      return;
    }
    // The read's answer re-computes again through `update`; a failed read leaves the caps as they are
    // until the others' publications age out above.
    options.refresh().catch(() => {});
    schedule(tick, tickMs);
  };

  const startTicking = (): void => {
    if (ticking) return;
    ticking = true;
    busyAt = clock();
    schedule(tick, tickMs);
  };

  return {
    update(instances) {
      view = instances;
      if (livePeers(clock()).length > 0) startTicking();
      byKey = new Map();
      for (const published of instances) {
        for (const entry of published.entries) {
          const key = keyOf(entry.nodeId, entry.model);
          let claims = byKey.get(key);
          if (claims === undefined) {
            claims = new Map();
            byKey.set(key, claims);
          }
          claims.set(published.instanceId, entry);
        }
      }
      recompute();
    },
    prepare(queue) {
      startTicking();
      const now = clock();
      const peers = livePeers(now);
      // The request that made the queue is about to ask for a slot: it counts.
      setShare(queue, peers.length === 0 ? undefined : capOf(queue, peers, now, 1), now);
    },
    reconsider(queue) {
      startTicking();
      const now = clock();
      const peers = livePeers(now);
      if (peers.length > 0) setShare(queue, capOf(queue, peers, now), now);
    },
  };
}
