/**
 * Publishing this instance's queue depths for every instance's status views (ARCHITECTURE.md §3.6,
 * ../store/queue-state-repository). Called after every change of a depth: the state goes out at once,
 * or — within a second of the last publication — when that second is up, so a burst of changes costs
 * one write and the last change is never left unpublished. While anything is queued or in flight it
 * goes out again every few seconds, so the state does not expire under a long stream. Holds a timer; the
 * write itself is the repository's (written behind).
 *
 * One change goes out at once, whatever the second: a slot freed that the last publication showed
 * running, while other instances are live (at most every URGENT_INTERVAL_MS). Another instance may be
 * holding a request back for that very slot (./shared-slots), and would otherwise wait up to two
 * seconds (the second here, the write-behind's second) — or, behind a Lambda container frozen after its
 * invocation, until the state expires. A slot freed and taken again at once (a busy instance) changes
 * nothing published and costs nothing; an instance alone never publishes early. So publications stay
 * bounded in time, not in requests: at most one a second, and with other instances live at most ten
 * a second while slots are being freed.
 */
import type { QueueStateRepository } from '../store/queue-state-repository';
import type { NodeModelQueue, QueueManager } from './queue-manager';

export interface QueuePublisherOptions {
  readonly instanceId: string;
  readonly queues: Pick<QueueManager, 'entries' | 'forEachQueue'>;
  readonly states: Pick<QueueStateRepository, 'publish'>;
  /** True once the instance is shutting down: nothing more is published. */
  readonly closed: () => boolean;
  /** Whether another instance is live (./shared-slots `hasPeers`): a slot freed here may be its turn. */
  readonly peersLive?: () => boolean;
  /** Sends what is written behind now: a freed slot must not wait for the write-behind's next flush. */
  readonly flush?: () => Promise<void>;
  readonly clock?: () => number;
  /** Runs `callback` after `ms`; returns a cancel. Default: an unref'd timer. */
  readonly schedule?: (callback: () => void, ms: number) => () => void;
}

/** At most one publication per this many ms. */
export const PUBLISH_INTERVAL_MS = 1000;
/** A freed slot others may wait for goes out sooner, but not more often than this. */
export const URGENT_INTERVAL_MS = 100;
/** Republished this often while busy (well inside the published state's TTL). */
export const REFRESH_INTERVAL_MS = 5000;

const realSchedule = (callback: () => void, ms: number) => {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export interface QueuePublisher {
  /** After a change of `queue`'s depths (or of anything, without one). */
  changed(queue?: NodeModelQueue): void;
  /**
   * Publishes now, whatever the second, and sends it: settles once written (./shared-slots announces a
   * demand the others must see before this instance grows past a first slot).
   */
  announce(): Promise<void>;
}

export function createQueuePublisher(options: QueuePublisherOptions): QueuePublisher {
  const clock = options.clock ?? Date.now;
  const schedule = options.schedule ?? realSchedule;
  const peersLive = options.peersLive ?? (() => false);
  const flush = options.flush ?? (() => Promise.resolve());
  /** What each queue ran at the last publication: what the other instances may believe it runs. */
  const published = new WeakMap<NodeModelQueue, number>();
  let last = Number.NEGATIVE_INFINITY;
  let cancel: (() => void) | undefined;
  let armedAt = Number.POSITIVE_INFINITY;

  /** Makes sure a publication runs by `at`: an earlier need replaces a later timer. */
  const arm = (at: number, now: number): void => {
    if (cancel !== undefined && armedAt <= at) return;
    cancel?.();
    armedAt = at;
    cancel = schedule(
      () => {
        cancel = undefined;
        armedAt = Number.POSITIVE_INFINITY;
        if (!options.closed()) publishNow(clock());
      },
      Math.max(0, at - now),
    );
  };

  const publishNow = (now: number): void => {
    last = now;
    const entries = options.queues.entries();
    options.states.publish(options.instanceId, entries, now);
    options.queues.forEachQueue((queue) => published.set(queue, queue.inFlight));
    if (entries.some((entry) => entry.pending + entry.inFlight > 0)) arm(now + REFRESH_INTERVAL_MS, now);
  };

  const changed = (queue?: NodeModelQueue): void => {
    if (options.closed()) return;
    const now = clock();
    if (now >= last + PUBLISH_INTERVAL_MS) {
      publishNow(now);
      return;
    }
    if (queue !== undefined && queue.inFlight < (published.get(queue) ?? 0) && peersLive()) {
      // A slot the others saw running is free: at once, or — a burst of them — every URGENT_INTERVAL_MS.
      if (now >= last + URGENT_INTERVAL_MS) {
        publishNow(now);
        flush().catch(() => {});
        return;
      }
      arm(last + URGENT_INTERVAL_MS, now);
      return;
    }
    arm(last + PUBLISH_INTERVAL_MS, now);
  };

  return {
    changed,
    announce() {
      if (options.closed()) return Promise.resolve();
      publishNow(clock());
      return flush();
    },
  };
}
