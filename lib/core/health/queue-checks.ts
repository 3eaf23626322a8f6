/**
 * Health checks on the router's queues (issue 22 item 3), added up across every live instance per
 * node and model: requests piling up behind a full node, requests turned away or timed out in a queue,
 * and node models running at their concurrency limit with work waiting. The rejected and timed-out
 * counts are each instance's since it started (what instances publish). Silent while queues drain. Pure.
 */
import type { QueueState } from '../fleet/queue-entry';
import { finding, type HealthChecks } from './health-finding';

/** Waiting requests per slot from which a queue is saturated (warning), and critical. */
export const SATURATION_WARNING = 2;
export const SATURATION_CRITICAL = 5;

interface Summed {
  readonly nodeId: string;
  readonly model: string;
  pending: number;
  inFlight: number;
  concurrency: number;
  rejected: number;
  timedOut: number;
}

/** One entry per node:model, summed across instances (the concurrency is the node's, the largest seen). */
export function sumQueues(queues: readonly QueueState[]): Summed[] {
  const summed = new Map<string, Summed>();
  for (const queue of queues) {
    const key = `${queue.nodeId}:${queue.model}`;
    const entry = summed.get(key) ?? {
      nodeId: queue.nodeId,
      model: queue.model,
      pending: 0,
      inFlight: 0,
      concurrency: 0,
      rejected: 0,
      timedOut: 0,
    };
    entry.pending += queue.pending;
    entry.inFlight += queue.inFlight;
    entry.concurrency = Math.max(entry.concurrency, queue.concurrency);
    entry.rejected += queue.rejected;
    entry.timedOut += queue.timedOut;
    summed.set(key, entry);
  }
  return [...summed.values()];
}

export const QUEUE_CHECKS: HealthChecks = {
  queue_saturation: ({ queues }) =>
    sumQueues(queues).flatMap((queue) => {
      const perSlot = queue.pending / Math.max(1, queue.concurrency);
      if (perSlot < SATURATION_WARNING) return [];
      return [
        finding('queue_saturation', {
          severity: perSlot >= SATURATION_CRITICAL ? 'critical' : 'warning',
          title: `${queue.pending} requests wait for ${queue.model} on ${queue.nodeId}`,
          description: `${queue.pending} requests wait behind ${queue.inFlight} in flight for ${queue.model} on ${queue.nodeId} (concurrency ${queue.concurrency}).`,
          fix: `Load ${queue.model} on more nodes, or raise the node's OLLAMA_NUM_PARALLEL (FLEET_NODE_CONCURRENCY) if it has memory for it.`,
          nodeId: queue.nodeId,
          data: {
            model: queue.model,
            pending: queue.pending,
            in_flight: queue.inFlight,
            concurrency: queue.concurrency,
          },
        }),
      ];
    }),
  requests_rejected: ({ queues }) =>
    sumQueues(queues)
      .filter((queue) => queue.rejected > 0)
      .map((queue) =>
        finding('requests_rejected', {
          severity: 'warning',
          title: `${queue.rejected} requests for ${queue.model} on ${queue.nodeId} were turned away`,
          description: `The queue for ${queue.model} on ${queue.nodeId} was full ${queue.rejected} times since the router instances started: those clients got 503.`,
          fix: `Add capacity for ${queue.model}: another node with it loaded, or more parallel slots.`,
          nodeId: queue.nodeId,
          data: { model: queue.model, rejected: queue.rejected },
        }),
      ),
  queue_timeouts: ({ queues }) =>
    sumQueues(queues)
      .filter((queue) => queue.timedOut > 0)
      .map((queue) =>
        finding('queue_timeouts', {
          severity: 'warning',
          title: `${queue.timedOut} requests timed out waiting for ${queue.model} on ${queue.nodeId}`,
          description: `${queue.timedOut} requests waited in the queue for ${queue.model} on ${queue.nodeId} until they gave up, since the router instances started.`,
          fix: `Add capacity for ${queue.model}, or find what holds its slots (long generations, hung streams).`,
          nodeId: queue.nodeId,
          data: { model: queue.model, timed_out: queue.timedOut },
        }),
      ),
  node_at_capacity: ({ queues }) =>
    sumQueues(queues)
      .filter((queue) => queue.concurrency > 0 && queue.inFlight >= queue.concurrency && queue.pending > 0)
      .filter((queue) => queue.pending / queue.concurrency < SATURATION_WARNING)
      .map((queue) =>
        finding('node_at_capacity', {
          severity: 'info',
          title: `${queue.model} on ${queue.nodeId} runs at its concurrency limit`,
          description: `All ${queue.concurrency} slots for ${queue.model} on ${queue.nodeId} are busy and ${queue.pending} requests wait.`,
          fix: 'Nothing if this is a short burst; if it lasts, add a node with the model or more parallel slots.',
          nodeId: queue.nodeId,
          data: {
            model: queue.model,
            in_flight: queue.inFlight,
            pending: queue.pending,
            concurrency: queue.concurrency,
          },
        }),
      ),
};
