/**
 * A node's slots shared between the router's instances (issue 25 item 2; ARCHITECTURE.md §3.6). Every
 * instance publishes its queues through the table (./queue-publisher). From the last read of the other
 * live instances' publications this module gives each of this instance's queues its cap, and the queue
 * holds newcomers back beyond it (./node-model-queue `setShare`). Alone — no other live instance in a
 * read of the last second — a queue keeps no cap: the whole limit, and no table on its path. A view
 * older than that gives a queue one request until the read it asks for lands (a failed read counts as
 * one: the last counts stand until they expire).
 *
 * With other instances live, a queue's cap is:
 * - while it starts — from idle, until a read of the table that began `settleMs` after this instance
 *   announced the start (published it and sent it) — at most one request: a start the others cannot
 *   have seen yet. A queue where requests wait announces at once. So instances that start on a node
 *   together add at most one request each beyond what the others are seen to run, and see each other
 *   within a write, `settleMs` and a read;
 * - once started, the share rule of lib/core/fleet/share-cap, or the whole limit when no other instance
 *   wants the node:model. The start's confirming read is followed by one more publication, so the
 *   others see what this instance then runs.
 *
 * Caps are re-computed when a read lands, when a queue is made, when a request starts waiting behind a
 * cap, and when a queue goes idle. A request held back makes the table be read again within `rereadMs`,
 * and again every `rereadMs` while any is held back, so it goes as soon as the others are seen to have
 * let the slot go — they publish a freed slot at once. While a queue is shared, a tick re-computes at
 * each rotation round and re-reads the table every second. Holds state and timers; reading and writing
 * are the caller's (`refresh`, whose answer comes back through `update`, and `announce`).
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
  /** Publishes this instance's queues now and sends them; settles once written (./queue-publisher). */
  readonly announce: () => Promise<void>;
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
  /**
   * How long after an announced start a read must begin to confirm it (100 ms): longer than another
   * instance's announcement and read take, so an instance that started at the same moment is seen.
   */
  readonly settleMs?: number;
  /** How often the table is read while a queue is shared and nothing is held back (1 s). */
  readonly tickMs?: number;
}

export interface SharedSlots {
  /** A read of the live instances' publications, begun at `readAt`, landed (this one's own may be in it). */
  update(instances: readonly PublishedQueues[], readAt: number): void;
  /** Gives a queue made just now its cap before its first slot is taken (QueueManager's `onCreate`). */
  prepare(queue: NodeModelQueue): void;
  /** A request started waiting behind `queue`'s cap (QueueManager's `onWait`): its demand counts now. */
  reconsider(queue: NodeModelQueue): void;
  /** `queue` has nothing waiting or running (QueueManager's `onIdle`): its next request starts anew. */
  idle(queue: NodeModelQueue): void;
  /** A read begun at `readAt` failed: the last counts stand until they expire, as if read again. */
  readFailed(readAt: number): void;
  /** Whether another instance was live at the last read: a slot freed here may be one it waits for. */
  hasPeers(): boolean;
}

export const ROTATION_MS = 4000;
export const REREAD_MS = 100;
export const SETTLE_MS = 100;
export const SHARE_TICK_MS = 1000;

/** A queue's start with other instances live: announced when, and confirmed by a later read. */
interface Start {
  announcing: boolean;
  announcedAt?: number;
  confirmed: boolean;
}

const realSchedule: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

const keyOf = (nodeId: string, model: string) => `${nodeId}\u0000${model}`;

/** Held back below its own limit by its cap: waiters, and slots the cap keeps free. */
const heldBack = (queue: NodeModelQueue): boolean =>
  queue.pending > 0 && queue.share !== undefined && queue.inFlight < queue.limit;

export function createSharedSlots(options: SharedSlotsOptions): SharedSlots {
  const clock = options.clock ?? Date.now;
  const schedule = options.schedule ?? realSchedule;
  const rotationMs = options.rotationMs ?? ROTATION_MS;
  const rereadMs = options.rereadMs ?? REREAD_MS;
  const settleMs = options.settleMs ?? SETTLE_MS;
  const tickMs = options.tickMs ?? SHARE_TICK_MS;
  /** When each other instance last published, as last read. */
  let peerTimes: readonly number[] = [];
  /** node:model → what each other instance that wants it published there, and when. */
  let byKey = new Map<string, (PeerDemand & { readonly at: number })[]>();
  const starts = new WeakMap<NodeModelQueue, Start>();
  let lastReadAt = Number.NEGATIVE_INFINITY;
  let cancelReread: (() => void) | undefined;
  let ticking = false;

  const livePeers = (now: number): boolean => peerTimes.some((at) => now - at <= options.maxAgeMs);

  const capOf = (queue: NodeModelQueue, now: number, coming: number): number | undefined => {
    if (!livePeers(now)) {
      // Alone as of a recent read. A view older than a tick may have missed an instance that started
      // since: one request, until the read it asks for lands.
      if (now - lastReadAt <= tickMs || starts.get(queue)?.confirmed === true) return undefined;
      return 1;
    }
    const demands = byKey.get(keyOf(queue.nodeId, queue.model));
    // An instance whose publication has expired stopped (a frozen or recycled container).
    const wanting = demands?.filter((demand) => now - demand.at <= options.maxAgeMs) ?? [];
    const cap =
      wanting.length === 0
        ? undefined
        : shareCap({
            limit: queue.limit,
            selfId: options.instanceId,
            selfDemand: queue.depth + coming,
            peers: wanting,
            round: Math.floor(now / rotationMs),
          });
    if (starts.get(queue)?.confirmed === true) return cap;
    // Starting: one request, until the others can have seen this instance ask.
    return Math.min(cap ?? queue.limit, 1);
  };

  const read = (): void => {
    cancelReread = undefined;
    if (options.closed?.() === true) return;
    // The answer re-computes through `update`; a failed read leaves the caps until the others'
    // publications age out.
    options.refresh().catch(() => {});
  };

  /** Reads the table again soon: at once, or `rereadMs` after the last read began. */
  const rereadSoon = (): void => {
    if (cancelReread !== undefined) return;
    cancelReread = schedule(read, Math.max(0, lastReadAt + rereadMs - clock()));
  };

  /** Publishes a start the others must see, then reads the table once they can have answered it. */
  const announce = (start: Start): void => {
    start.announcing = true;
    options.announce().then(
      () => {
        start.announcing = false;
        start.announcedAt = clock();
        schedule(rereadSoon, settleMs);
      },
      () => {
        // Not written: the next re-computation announces again.
        start.announcing = false;
      },
    );
  };

  /** Gives `queue` its cap now, and sees that a request it holds back is let go as soon as it can be. */
  const apply = (queue: NodeModelQueue, now: number, coming: number): void => {
    queue.setShare(capOf(queue, now, coming));
    if (queue.share !== undefined) startTicking();
    if (queue.pending === 0) return;
    let start = starts.get(queue);
    if (start === undefined) {
      start = { announcing: false, confirmed: false };
      starts.set(queue, start);
    }
    // Requests wait at a queue whose start the others have not seen: they must see it, whether the one
    // request it runs holds them back (a limit above 1) or the limit does (a limit of 1, where two
    // starting instances run one each until each sees the other asking).
    if (!start.confirmed && start.announcedAt === undefined && livePeers(now)) {
      if (!start.announcing) announce(start);
      return;
    }
    if (heldBack(queue)) rereadSoon();
  };

  // While a busy queue is shared: re-compute when the rotation moves on, and read the table every tick.
  const tick = (): void => {
    const now = clock();
    let shared = false;
    if (options.closed?.() !== true) {
      options.queues.forEachQueue((queue) => {
        apply(queue, now, 0);
        if (queue.share !== undefined && queue.depth > 0) shared = true;
      });
    }
    if (!shared) {
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
    update(instances, readAt) {
      lastReadAt = Math.max(lastReadAt, readAt);
      const times: number[] = [];
      byKey = new Map();
      for (const published of instances) {
        if (published.instanceId === options.instanceId) continue;
        times.push(published.at);
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
      peerTimes = times;
      const now = clock();
      let confirmed = false;
      options.queues.forEachQueue((queue) => {
        const start = starts.get(queue);
        if (start !== undefined && !start.confirmed && start.announcedAt !== undefined) {
          if (readAt >= start.announcedAt + settleMs) {
            start.confirmed = true;
            confirmed = true;
          }
        }
        apply(queue, now, 0);
      });
      // What a confirmed start lets run goes out at once: the others must not take it for the one request.
      if (confirmed) options.announce().catch(() => {});
    },
    prepare(queue) {
      // The request that made the queue is about to ask for a slot: it counts.
      apply(queue, clock(), 1);
    },
    reconsider(queue) {
      apply(queue, clock(), 0);
    },
    idle(queue) {
      starts.delete(queue);
      const now = clock();
      if (livePeers(now)) queue.setShare(capOf(queue, now, 0));
    },
    readFailed(readAt) {
      lastReadAt = Math.max(lastReadAt, readAt);
      const now = clock();
      options.queues.forEachQueue((queue) => apply(queue, now, 0));
    },
    hasPeers: () => livePeers(clock()),
  };
}
