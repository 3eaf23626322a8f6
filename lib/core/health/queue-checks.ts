/**
 * Health checks on the router's queues (issue 22 item 3), added up across every live instance per
 * node and model: requests piling up behind a full node, requests turned away or timed out in a queue,
 * and node models running at their concurrency limit with work waiting. The rejected and timed-out
 * counts are those of the last `queueCountsSpanMs` (lib/features/health counts them from what instances
 * publish, which is since each started). Silent while queues drain. Pure.
 */
import type { QueueState } from '../fleet/queue-entry';
import { finding, type HealthChecks } from './health-finding';

/** Waiting requests per slot from which a queue is saturated (warning), and critical. */
export const SATURATION_WARNING = 2;
export const SATURATION_CRITICAL = 5;

const minutes = (ms: number) => Math.max(1, Math.round(ms / 60_000));

/** One entry per node:model, summed across instances (the concurrency is the node's: the largest seen). */
export function sumQueues(queues: readonly QueueState[]): QueueState[] {
  const summed = new Map<string, QueueState>();
  for (const queue of queues) {
    const key = `${queue.nodeId}:${queue.model}`;
    const entry = summed.get(key);
    summed.set(
      key,
      entry === undefined
        ? { ...queue }
        : {
            ...entry,
            pending: entry.pending + queue.pending,
            inFlight: entry.inFlight + queue.inFlight,
            concurrency: Math.max(entry.concurrency, queue.concurrency),
            completed: entry.completed + queue.completed,
            failed: entry.failed + queue.failed,
            cancelled: entry.cancelled + queue.cancelled,
            rejected: entry.rejected + queue.rejected,
            timedOut: entry.timedOut + queue.timedOut,
          },
    );
  }
  return [...summed.values()];
}

export const QUEUE_CHECKS: HealthChecks = {
  queue_saturation: {
    title: 'Queues piling up',
    severity: 'critical',
    run: ({ queues }) =>
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
  },
  requests_rejected: {
    title: 'Requests turned away by full queues',
    severity: 'warning',
    run: ({ queues, queueCountsSpanMs }) =>
      sumQueues(queues)
        .filter((queue) => queue.rejected > 0)
        .map((queue) =>
          finding('requests_rejected', {
            severity: 'warning',
            title: `${queue.rejected} requests for ${queue.model} on ${queue.nodeId} were turned away`,
            description: `The queue for ${queue.model} on ${queue.nodeId} was full ${queue.rejected} times in the last ${minutes(queueCountsSpanMs)} min: those clients got 503.`,
            fix: `Add capacity for ${queue.model}: another node with it loaded, or more parallel slots.`,
            nodeId: queue.nodeId,
            data: { model: queue.model, rejected: queue.rejected, span_s: Math.round(queueCountsSpanMs / 1000) },
          }),
        ),
  },
  queue_timeouts: {
    title: 'Requests timing out in queues',
    severity: 'warning',
    run: ({ queues, queueCountsSpanMs }) =>
      sumQueues(queues)
        .filter((queue) => queue.timedOut > 0)
        .map((queue) =>
          finding('queue_timeouts', {
            severity: 'warning',
            title: `${queue.timedOut} requests timed out waiting for ${queue.model} on ${queue.nodeId}`,
            description: `${queue.timedOut} requests waited in the queue for ${queue.model} on ${queue.nodeId} until they gave up, in the last ${minutes(queueCountsSpanMs)} min.`,
            fix: `Add capacity for ${queue.model}, or find what holds its slots (long generations, hung streams).`,
            nodeId: queue.nodeId,
            data: { model: queue.model, timed_out: queue.timedOut, span_s: Math.round(queueCountsSpanMs / 1000) },
          }),
        ),
  },
  node_at_capacity: {
    title: 'Node models at their concurrency limit',
    severity: 'info',
    run: ({ queues }) =>
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
  },
};
