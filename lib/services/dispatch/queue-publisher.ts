/**
 * Publishing this instance's queue depths for every instance's status views (ARCHITECTURE.md §3.6,
 * ../store/queue-state-repository). Called after every change of a depth: the state goes out at once,
 * or — within a second of the last publication — when that second is up, so a burst of changes costs
 * one write and the last change is never left unpublished. While anything is queued or in flight it
 * goes out again every few seconds, so the state does not expire under a long stream. Holds a timer; the
 * write itself is the repository's (written behind).
 */
import type { QueueStateRepository } from '../store/queue-state-repository';
import type { QueueManager } from './queue-manager';

export interface QueuePublisherOptions {
  readonly instanceId: string;
  readonly queues: Pick<QueueManager, 'entries'>;
  readonly states: Pick<QueueStateRepository, 'publish'>;
  /** True once the instance is shutting down: nothing more is published. */
  readonly closed: () => boolean;
  readonly clock?: () => number;
  /** Runs `callback` after `ms`; returns a cancel. Default: an unref'd timer. */
  readonly schedule?: (callback: () => void, ms: number) => () => void;
}

/** At most one publication per this many ms. */
export const PUBLISH_INTERVAL_MS = 1000;
/** Republished this often while busy (well inside the published state's TTL). */
export const REFRESH_INTERVAL_MS = 5000;

const realSchedule = (callback: () => void, ms: number) => {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export function createQueuePublisher(options: QueuePublisherOptions): () => void {
  const clock = options.clock ?? Date.now;
  const schedule = options.schedule ?? realSchedule;
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
        publish();
      },
      Math.max(0, at - now),
    );
  };

  const publish = (): void => {
    if (options.closed()) return;
    const now = clock();
    if (now < last + PUBLISH_INTERVAL_MS) {
      arm(last + PUBLISH_INTERVAL_MS, now);
      return;
    }
    last = now;
    const entries = options.queues.entries();
    options.states.publish(options.instanceId, entries, now);
    if (entries.some((entry) => entry.pending + entry.inFlight > 0)) arm(now + REFRESH_INTERVAL_MS, now);
  };
  return publish;
}
