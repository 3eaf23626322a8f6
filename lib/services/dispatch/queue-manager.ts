/**
 * The process's queues (issue: routing item 2): one `NodeModelQueue` per node:model, created on first
 * use. `acquire` hands out a slot at once when one is free, else queues the request in its line (by
 * priority, in turn across applications: lib/core/queue/wait-line) —
 * bounded in length (a full queue answers 503 with Retry-After at once) and in time — and the slot is
 * held until the caller releases it at the end of the stream. Depth = pending + in flight: the scorer
 * reads it, and `entries()` is what `/fleet/status` and `/fleet/queue` show.
 *
 * One instance per process, exact inside it (ARCHITECTURE.md §3.6). Across instances: `entries()` is
 * what the instance publishes through the table (./queue-publisher); the scorer reads depths through
 * the `QueueDepths` interface (lib/core/scoring/load-signals), which ./fleet-depths fills with the
 * others' published counts too; and each queue runs only this instance's share of the node's slots
 * when other instances are live (./shared-slots sets it, through `forEachQueue` and the hooks below).
 * Holds state; no I/O.
 */

import type { QueueState } from '../../core/fleet/queue-entry';
import type { WaitClaim, WaitLineOptions } from '../../core/queue/wait-line';
import type { QueueDepths } from '../../core/scoring/load-signals';
import type { AbortSource } from '../../core/stream/abort-source';
import { NodeModelQueue, type Schedule, type Slot } from './node-model-queue';
import { RequestAbortedError } from './request-aborted';

export type { QueueState } from '../../core/fleet/queue-entry';
export type { NodeModelQueue, Schedule, Slot, SlotOutcome } from './node-model-queue';

export interface QueueManager extends QueueDepths {
  /**
   * A slot on node:model, at most `limit` held at once (./concurrency-limit). Rejects with
   * ServiceUnavailableError (code `queue_full` or `queue_timeout`, with Retry-After) and with
   * RequestAbortedError when `signal` aborts while waiting.
   */
  acquire(nodeId: string, model: string, limit: number, signal?: AbortSource, claim?: WaitClaim): Promise<Slot>;
  /** A slot at once when one is free and nobody waits for it; undefined otherwise (then `acquire`). */
  tryAcquire(nodeId: string, model: string, limit: number): Slot | undefined;
  depth(nodeId: string, model: string): number;
  entries(): QueueState[];
  /** Visits every queue (./shared-slots re-computes each one's share). */
  forEachQueue(visit: (queue: NodeModelQueue) => void): void;
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
  readonly onChange?: (queue: NodeModelQueue) => void;
  /** Called with a queue when it is made, before its first slot is taken (./shared-slots: its share). */
  readonly onCreate?: (queue: NodeModelQueue) => void;
  /**
   * Called when a request starts waiting in a queue with a share (its node has other instances' traffic
   * to reckon with: ./shared-slots re-computes the share with the waiter, and makes the others see it).
   */
  readonly onWait?: (queue: NodeModelQueue) => void;
  /** Called when a queue has nothing waiting or running any more (./shared-slots: its next start). */
  readonly onIdle?: (queue: NodeModelQueue) => void;
  /** How waiting requests take turns: priorities' aging and applications' weights (issue 43). */
  readonly line?: WaitLineOptions;
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
    onChange(queue);
    let set = busy.get(queue.model);
    if (queue.depth > 0) {
      if (set === undefined) {
        set = new Set();
        busy.set(queue.model, set);
      }
      set.add(queue);
    } else if (set?.delete(queue) === true) {
      if (set.size === 0) busy.delete(queue.model);
      options.onIdle?.(queue);
    }
  };
  const env = {
    clock: options.clock ?? Date.now,
    schedule: options.schedule ?? realSchedule,
    changed,
    ...(options.line === undefined ? {} : { line: options.line }),
  };

  const ensure = (nodeId: string, model: string, limit: number): NodeModelQueue => {
    let byNode = byModel.get(model);
    if (byNode === undefined) {
      byNode = new Map();
      byModel.set(model, byNode);
    }
    let queue = byNode.get(nodeId);
    if (queue === undefined) {
      queue = new NodeModelQueue(nodeId, model, env);
      byNode.set(nodeId, queue);
      queue.setLimit(limit);
      options.onCreate?.(queue);
    }
    return queue;
  };

  return {
    acquire(nodeId, model, limit, signal, claim) {
      if (signal?.aborted === true) return Promise.reject(new RequestAbortedError());
      const queue = ensure(nodeId, model, limit);
      queue.setLimit(limit);
      const slot = queue.takeIfFree();
      if (slot !== undefined) return Promise.resolve(slot);
      if (queue.pending >= maxPending) return Promise.reject(queue.reject());
      const waiting = queue.wait(timeoutMs, signal, claim);
      if (queue.share !== undefined) options.onWait?.(queue);
      return waiting;
    },
    tryAcquire(nodeId, model, limit) {
      const queue = ensure(nodeId, model, limit);
      queue.setLimit(limit);
      return queue.takeIfFree();
    },
    depth: (nodeId, model) => byModel.get(model)?.get(nodeId)?.depth ?? 0,
    forEachBusy(model, visit) {
      const set = busy.get(model);
      if (set !== undefined) for (const queue of set) visit(queue.nodeId, queue.depth);
    },
    forEachBusyModel(visit) {
      for (const [model, set] of busy) for (const queue of set) visit(model, queue.nodeId, queue.depth);
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
    forEachQueue(visit) {
      for (const byNode of byModel.values()) for (const queue of byNode.values()) visit(queue);
    },
    entries: () => [...byModel.values()].flatMap((byNode) => [...byNode.values()].map((queue) => queue.state())),
  };
}
