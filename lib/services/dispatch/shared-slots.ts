/**
 * A node's slots shared between the router's instances (issue 25 item 2; ARCHITECTURE.md §3.6). Every
 * instance publishes its queues through the table (./queue-publisher). From the last read of the other
 * live instances' publications this module gives each of this instance's queues its cap
 * (lib/core/fleet/share-cap), and the queue holds newcomers back beyond it (./node-model-queue
 * `setShare`). A queue that no other instance wants keeps no cap: the whole limit, no table on its path.
 *
 * Caps are re-computed when a read lands, when a queue is made, and when a request starts waiting
 * behind a cap. A request held back by the others (its queue's own slots are free, the cap is not)
 * makes the table be read again soon, and again every `rereadMs` while any is held back, so it goes as
 * soon as the others are seen to have let the slot go — they publish a freed slot at once. While any
 * queue is shared, a tick re-computes at each rotation round and re-reads the table every second.
 * Holds state and a timer; reading is the caller's (`refresh`, whose answer comes back through `update`).
 */
import { type PeerDemand, shareCap } from '../../core/fleet/share-cap';
import type { NodeModelQueue, QueueManager, Schedule } from './queue-manager';

/** What an instance published for one node:model (lib/core/fleet/queue-entry's QueueState fits it). */
export interface PublishedQueue {
  readonly nodeId: string;
  readonly model: string;
  readonly pending: number;
  readonly inFlight: number;
}

/** One live instance's last publication. */
export interface PublishedQueues {
  readonly instanceId: string;
  readonly at: number;
  readonly entries: readonly PublishedQueue[];
}

export interface SharedSlotsOptions {
  readonly instanceId: string;
  readonly queues: Pick<QueueManager, 'forEachQueue'>;
  /** Re-reads every instance's publication; the answer comes back through `update`. */
  readonly refresh: () => Promise<void>;
  /** True once the instance is shutting down: no more reads of a table going away. */
  readonly closed?: () => boolean;
  readonly clock?: () => number;
  readonly schedule?: Schedule;
  /** A publication older than this is an instance that stopped (the published state's TTL). */
  readonly maxAgeMs: number;
  /** How long a rotation round lasts when more instances want a node than it has slots (4 s). */
  readonly rotationMs?: number;
  /** How soon the table is read again while a request is held back by the others (100 ms). */
  readonly rereadMs?: number;
  /** How often the table is read while a queue is shared and nothing is held back (1 s). */
  readonly tickMs?: number;
}

export interface SharedSlots {
  /** A read of the live instances' publications landed (this instance's own may be among them). */
  update(instances: readonly PublishedQueues[]): void;
  /** Gives a queue made just now its cap before its first slot is taken (QueueManager's `onCreate`). */
  prepare(queue: NodeModelQueue): void;
  /** A request started waiting behind `queue`'s cap (QueueManager's `onWait`): its demand counts now. */
  reconsider(queue: NodeModelQueue): void;
  /** Whether another instance was live at the last read: a slot freed here may be one it waits for. */
  hasPeers(): boolean;
}

export const ROTATION_MS = 4000;
export const REREAD_MS = 100;
export const SHARE_TICK_MS = 1000;

const realSchedule: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

const keyOf = (nodeId: string, model: string) => `${nodeId}\u0000${model}`;

/** Held back by the others: waiters, and slots of its own limit the cap keeps free. */
const heldBack = (queue: NodeModelQueue): boolean =>
  queue.pending > 0 && queue.share !== undefined && queue.inFlight < queue.limit;

export function createSharedSlots(options: SharedSlotsOptions): SharedSlots {
  const clock = options.clock ?? Date.now;
  const schedule = options.schedule ?? realSchedule;
  const rotationMs = options.rotationMs ?? ROTATION_MS;
  const rereadMs = options.rereadMs ?? REREAD_MS;
  const tickMs = options.tickMs ?? SHARE_TICK_MS;
  /** Other instances' publications, as last read. */
  let peers: readonly PublishedQueues[] = [];
  /** node:model → what each other instance that wants it published there, and when. */
  let byKey = new Map<string, (PeerDemand & { readonly at: number })[]>();
  let lastReadAt = Number.NEGATIVE_INFINITY;
  let cancelReread: (() => void) | undefined;
  let ticking = false;

  const livePeers = (now: number): boolean => peers.some((published) => now - published.at <= options.maxAgeMs);

  const capOf = (queue: NodeModelQueue, now: number, coming: number): number | undefined => {
    const demands = byKey.get(keyOf(queue.nodeId, queue.model));
    if (demands === undefined) return undefined;
    // An instance whose publication has expired stopped (a frozen or recycled container).
    const live = demands.filter((demand) => now - demand.at <= options.maxAgeMs);
    return shareCap({
      limit: queue.limit,
      selfId: options.instanceId,
      selfDemand: queue.depth + coming,
      peers: live,
      round: Math.floor(now / rotationMs),
    });
  };

  const read = (): void => {
    cancelReread = undefined;
    if (options.closed?.() === true) return;
    lastReadAt = clock();
    // The answer re-computes through `update`; a failed read leaves the caps until the others'
    // publications age out.
    options.refresh().catch(() => {});
  };

  /** Reads the table again soon: at once, or `rereadMs` after the last read began. */
  const rereadSoon = (): void => {
    if (cancelReread !== undefined) return;
    cancelReread = schedule(read, Math.max(0, lastReadAt + rereadMs - clock()));
  };

  /** Re-computes every queue's cap; whether any queue is shared now. */
  const recompute = (): boolean => {
    const now = clock();
    let shared = false;
    let waiting = false;
    options.queues.forEachQueue((queue) => {
      queue.setShare(capOf(queue, now, 0));
      if (queue.share !== undefined) shared = true;
      if (heldBack(queue)) waiting = true;
    });
    if (waiting) rereadSoon();
    if (shared) startTicking();
    return shared;
  };

  // While a queue is shared: re-compute when the rotation moves on, and read the table every tick.
  const tick = (): void => {
    const now = clock();
    if (options.closed?.() === true || !recompute()) {
      ticking = false;
      return;
    }
    if (now - lastReadAt >= tickMs) read();
    const nextRound = (Math.floor(now / rotationMs) + 1) * rotationMs;
    schedule(tick, Math.min(tickMs, nextRound - now));
  };

  function startTicking(): void {
    if (ticking) return;
    ticking = true;
    schedule(tick, tickMs);
  }

  return {
    update(instances) {
      const others = instances.filter((published) => published.instanceId !== options.instanceId);
      peers = others;
      byKey = new Map();
      for (const published of others) {
        for (const entry of published.entries) {
          if (entry.pending + entry.inFlight <= 0) continue;
          const key = keyOf(entry.nodeId, entry.model);
          let demands = byKey.get(key);
          if (demands === undefined) {
            demands = [];
            byKey.set(key, demands);
          }
          demands.push({
            id: published.instanceId,
            pending: entry.pending,
            inFlight: entry.inFlight,
            at: published.at,
          });
        }
      }
      recompute();
    },
    prepare(queue) {
      // The request that made the queue is about to ask for a slot: it counts.
      queue.setShare(capOf(queue, clock(), 1));
    },
    reconsider(queue) {
      queue.setShare(capOf(queue, clock(), 0));
      if (heldBack(queue)) rereadSoon();
      if (queue.share !== undefined) startTicking();
    },
    hasPeers: () => livePeers(clock()),
  };
}
