/**
 * One node:model queue's depth, the fleet's domain model of a queue (issue: routing item 2): what the
 * dispatcher's queues report (lib/services/dispatch/node-model-queue), what instances publish to each
 * other through the table (lib/services/store/queue-state-repository), and what the status views add up
 * (../views). Types only.
 */

/** What waits in a queue by priority and by application (issue 43): plain objects, as instances publish them. */
export interface WaitingBreakdown {
  readonly byPriority: Readonly<Record<'high' | 'normal' | 'low', number>>;
  readonly byApp: Readonly<Record<string, number>>;
}

/** One node:model queue as the router sees it (from the snapshot's reports: ../views/queues-from-snapshot). */
export interface QueueEntry {
  readonly nodeId: string;
  readonly model: string;
  readonly pending: number;
  readonly inFlight: number;
  readonly concurrency: number;
  /** Present when requests wait in the router's queue: who waits, by priority and application. */
  readonly waiting?: WaitingBreakdown;
}

/** A queue this router runs: its depth and what happened to its requests. */
export interface QueueState extends QueueEntry {
  readonly completed: number;
  readonly failed: number;
  readonly cancelled: number;
  /** Turned away because the queue was full. */
  readonly rejected: number;
  readonly timedOut: number;
}
