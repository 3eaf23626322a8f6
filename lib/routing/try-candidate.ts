/**
 * One attempt on one ranked candidate (issue: routing items 2 and 3): take a slot in its queue, send,
 * and sort the outcome into served (2xx, and 4xx: the client's mistake, returned as is) or a failure the
 * dispatcher moves on from (queue full or timed out; connection error or time-out before the first
 * byte; a 5xx). The slot is released on every path except served, where the caller keeps it for the
 * life of the stream. A client that goes away at any await frees everything and ends the dispatch.
 */
import { ServiceUnavailableError } from '../errors';
import { nodeFailureWords, technicalCause } from '../fleet/node-failure';
import type { AbortSource } from '../stream/abort-source';
import type { AttemptFailure } from './dispatch-failures';
import type { QueueManager, Slot } from './queue-manager';
import type { RankedCandidate } from './rank-nodes';
import { RequestAbortedError } from './request-aborted';
import type { NodeAttempt, NodeReply, NodeTransport } from './transport';

export type CandidateOutcome =
  | {
      readonly kind: 'served';
      readonly attempt: NodeAttempt;
      readonly reply: NodeReply;
      readonly slot: Slot;
      readonly sentAt: number;
    }
  | { readonly kind: 'failed'; readonly failure: AttemptFailure };

export interface CandidateDeps {
  readonly queues: QueueManager;
  readonly send: NodeTransport;
  readonly clock: () => number;
}

async function takeSlot(
  candidate: RankedCandidate,
  queues: QueueManager,
  signal: AbortSource,
): Promise<{ readonly slot: Slot } | { readonly failure: AttemptFailure }> {
  try {
    return { slot: await queues.acquire(candidate.node.id, candidate.model, candidate.limit, signal) };
  } catch (error) {
    if (signal.aborted) throw new RequestAbortedError();
    if (!(error instanceof ServiceUnavailableError)) throw error;
    const timedOut = error.code === 'queue_timeout';
    return {
      failure: {
        nodeId: candidate.node.id,
        model: candidate.model,
        kind: timedOut ? 'queue-timeout' : 'queue-full',
        detail: timedOut ? 'timed out waiting in its queue' : 'its queue is full',
        clientRetryHelps: true,
        retryAfterSeconds: error.retryAfterSeconds,
      },
    };
  }
}

export async function tryCandidate(
  candidate: RankedCandidate,
  deps: CandidateDeps,
  signal: AbortSource,
): Promise<CandidateOutcome> {
  // A free slot is taken at once: no promise for the usual case of a node with room.
  let slot = signal.aborted ? undefined : deps.queues.tryAcquire(candidate.node.id, candidate.model, candidate.limit);
  if (slot === undefined) {
    const taken = await takeSlot(candidate, deps.queues, signal);
    if ('failure' in taken) return { kind: 'failed', failure: taken.failure };
    slot = taken.slot;
  }
  if (signal.aborted) {
    slot.release('cancelled');
    throw new RequestAbortedError();
  }
  const attempt: NodeAttempt = { node: candidate.node, placement: candidate.placement, model: candidate.model };
  // A node that failed now may answer in a moment (or be passed over for a peer): a client retry can help.
  const base = { nodeId: candidate.node.id, model: candidate.model, clientRetryHelps: true } as const;
  const sentAt = deps.clock();
  let reply: NodeReply;
  try {
    reply = await deps.send(attempt, signal);
  } catch (error) {
    slot.release(signal.aborted ? 'cancelled' : 'failed');
    if (signal.aborted) throw new RequestAbortedError();
    // Words for the client; the URL and undici's code go to the trace and the log only.
    const detail = nodeFailureWords(error);
    const cause = technicalCause(error);
    return { kind: 'failed', failure: { ...base, kind: 'unreachable', detail, cause, failedAt: deps.clock() } };
  }
  if (signal.aborted) {
    reply.cancel();
    slot.release('cancelled');
    throw new RequestAbortedError();
  }
  if (reply.status >= 500) {
    reply.cancel();
    slot.release('failed');
    const detail = `failed (HTTP ${reply.status})`;
    return { kind: 'failed', failure: { ...base, kind: 'server-error', detail, failedAt: deps.clock() } };
  }
  return { kind: 'served', attempt, reply, slot, sentAt };
}
