/**
 * The process's queues (issue: routing item 2): one `NodeModelQueue` per node:model, created on first
 * use. `acquire` hands out a slot at once when one is free, else queues the request in arrival order —
 * bounded in length (a full queue answers 503 with Retry-After at once) and in time — and the slot is
 * held until the caller releases it at the end of the stream. Depth = pending + in flight: the scorer
 * reads it, and `entries()` is what `/fleet/status` and `/fleet/queue` show.
 *
 * One instance per process, exact inside it (ARCHITECTURE.md §3.6). The seam for sharing across
 * instances: `entries()` is what an instance would publish through the table, and the scorer reads
 * depths only through the `QueueDepths` interface (lib/core/scoring/load-signals), so a view that adds the other
 * instances' published counts can stand in for this one without touching the scorer. Holds state; no I/O.
 */

import type { QueueState } from '../../core/fleet/queue-entry';
import type { QueueDepths } from '../../core/scoring/load-signals';
import type { AbortSource } from '../../core/stream/abort-source';
import { NodeModelQueue, type Schedule, type Slot } from './node-model-queue';
import { RequestAbortedError } from './request-aborted';

export type { QueueState } from '../../core/fleet/queue-entry';
export type { Schedule, Slot, SlotOutcome } from './node-model-queue';

export interface QueueManager extends QueueDepths {
  /**
   * A slot on node:model, at most `limit` held at once (./concurrency-limit). Rejects with
   * ServiceUnavailableError (code `queue_full` or `queue_timeout`, with Retry-After) and with
   * RequestAbortedError when `signal` aborts while waiting.
   */
  acquire(nodeId: string, model: string, limit: number, signal?: AbortSource): Promise<Slot>;
  /** A slot at once when one is free and nobody waits for it; undefined otherwise (then `acquire`). */
  tryAcquire(nodeId: string, model: string, limit: number): Slot | undefined;
  depth(nodeId: string, model: string): number;
  entries(): QueueState[];
  /**
   * Rejects everyone waiting for a slot on `nodeId` for a model `which` accepts (all when absent) with
   * `error(model)` (the node, or its sidecar, was ejected); slots held stay held. Returns how many left.
   */
  evict(nodeId: string, error: (model: string) => Error, which?: (model: string) => boolean): number;
}

export interface QueueManagerOptions {
  /** Requests that may wait per node:model (default 32); one more is turned away. */
  readonly maxPending?: number;
  /** Longest wait for a slot (default 60 s). */
  readonly timeoutMs?: number;
  readonly clock?: () => number;
  readonly schedule?: Schedule;
  /**
   * Called after every change of a depth — a slot taken or released, a waiter in or out — whoever
   * caused it (a finished stream, a client that left while queued or mid-dispatch, a time-out).
   */
  readonly onChange?: () => void;
}

const DEFAULT_MAX_PENDING = 32;
const DEFAULT_TIMEOUT_MS = 60_000;

const realSchedule: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

export function createQueueManager(options: QueueManagerOptions = {}): QueueManager {
  const maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  /** model → node id → queue: a depth read is two gets, no key building. */
  const byModel = new Map<string, Map<string, NodeModelQueue>>();
  /** model → its queues with anything pending or in flight: the scorer visits only these. */
  const busy = new Map<string, Set<NodeModelQueue>>();

  const onChange = options.onChange ?? (() => {});
  const changed = (queue: NodeModelQueue): void => {
    onChange();
    let set = busy.get(queue.model);
    if (queue.depth > 0) {
      if (set === undefined) {
        set = new Set();
        busy.set(queue.model, set);
      }
      set.add(queue);
    } else if (set !== undefined) {
      set.delete(queue);
      if (set.size === 0) busy.delete(queue.model);
    }
  };
  const env = { clock: options.clock ?? Date.now, schedule: options.schedule ?? realSchedule, changed };

  const ensure = (nodeId: string, model: string): NodeModelQueue => {
    let byNode = byModel.get(model);
    if (byNode === undefined) {
      byNode = new Map();
      byModel.set(model, byNode);
    }
    let queue = byNode.get(nodeId);
    if (queue === undefined) {
      queue = new NodeModelQueue(nodeId, model, env);
      byNode.set(nodeId, queue);
    }
    return queue;
  };

  return {
    acquire(nodeId, model, limit, signal) {
      if (signal?.aborted === true) return Promise.reject(new RequestAbortedError());
      const queue = ensure(nodeId, model);
      queue.setLimit(limit);
      const slot = queue.takeIfFree();
      if (slot !== undefined) return Promise.resolve(slot);
      if (queue.pending >= maxPending) return Promise.reject(queue.reject());
      return queue.wait(timeoutMs, signal);
    },
    tryAcquire(nodeId, model, limit) {
      const queue = ensure(nodeId, model);
      queue.setLimit(limit);
      return queue.takeIfFree();
    },
    depth: (nodeId, model) => byModel.get(model)?.get(nodeId)?.depth ?? 0,
    forEachBusy(model, visit) {
      const set = busy.get(model);
      if (set !== undefined) for (const queue of set) visit(queue.nodeId, queue.depth);
    },
    evict(nodeId, error, which) {
      let evicted = 0;
      for (const [model, byNode] of byModel) {
        const queue = byNode.get(nodeId);
        if (queue === undefined || queue.pending === 0 || (which !== undefined && !which(model))) continue;
        evicted += queue.evictWaiters(() => error(model));
      }
      return evicted;
    },
    entries: () => [...byModel.values()].flatMap((byNode) => [...byNode.values()].map((queue) => queue.state())),
  };
}
