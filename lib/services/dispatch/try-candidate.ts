/**
 * One attempt on one ranked candidate (issue: routing items 2 and 3): take a slot in its queue, send,
 * and sort the outcome into served (2xx, and 4xx: the client's mistake, returned as is) or a failure the
 * dispatcher moves on from (queue full or timed out; connection error or time-out before the first
 * byte; a 5xx). The slot is released on every path except served, where the caller keeps it for the
 * life of the stream. A client that goes away at any await frees everything and ends the dispatch.
 * Each outcome up to the reply's headers is told to outlier ejection (./outlier-ejection; how a served
 * reply ends, the dispatcher's served slot tells): a node ejected by this attempt's
 * failure sends its queue's waiters on to their next candidates before its slot frees, and a node
 * that is ejected — before the attempt, or while it waited in the queue — is not sent to.
 */
import { ServiceUnavailableError } from '../../core/errors';
import type { EjectionTarget, FailureCause } from '../../core/fleet/ejection';
import { nodeFailureWords, technicalCause } from '../../core/fleet/node-failure';
import type { WaitClaim } from '../../core/queue/wait-line';
import type { RankedCandidate } from '../../core/scoring/rank-nodes';
import type { AbortSource } from '../../core/stream/abort-source';
import type { AttemptFailure } from './dispatch-failures';
import { ejectedWhileWaiting, evictEjected, secondsLeft } from './evict-ejected';
import type { LatencyStats } from './latency-stats';
import { failureCause, type OutlierEjection } from './outlier-ejection';
import type { PrefillLedger } from './prefill-ledger';
import type { QueueManager, Slot } from './queue-manager';
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
  readonly ejection?: OutlierEjection | undefined;
  /** Called every second while the request waits for a slot: judges the latest polls (the dispatcher's). */
  readonly whileWaiting?: (() => void) | undefined;
  /** The request's place in a queue's line: priority and application (issue 43); the router's own when absent. */
  readonly claim?: WaitClaim | undefined;
  /** Where the time the request waited in queues adds up, over its attempts (the trace's `queueWaitMs`). */
  readonly queued?: { waitedMs: number } | undefined;
  /** Where a wait in line is recorded, per place the request had in it (the scorer's expected wait). */
  readonly waits?: Pick<LatencyStats, 'recordQueueWait'> | undefined;
  /** The prompts each node is evaluating: this attempt's is in it from its send to its first byte. */
  readonly prefill?: PrefillLedger | undefined;
}

function targetOf(candidate: RankedCandidate): EjectionTarget {
  return { nodeId: candidate.node.id, backend: candidate.placement.backend };
}

function ejectedFailure(candidate: RankedCandidate, error: ServiceUnavailableError): AttemptFailure {
  return {
    nodeId: candidate.node.id,
    model: candidate.model,
    kind: 'ejected',
    detail: error.message,
    clientRetryHelps: true,
    retryAfterSeconds: error.retryAfterSeconds,
  };
}

/**
 * Counts a failed attempt; when it ejects the node, everyone queued on the node moves on now. Called
 * before the attempt's slot is released, so no waiter is handed that slot on an ejected node. The
 * detail, which the retried trace keeps, says the node was ejected.
 */
function noteFailure(
  candidate: RankedCandidate,
  deps: CandidateDeps,
  cause: FailureCause,
  what: string,
  detail: string,
  now: number,
): string {
  const ejection = deps.ejection?.recordFailure(targetOf(candidate), cause, what, now);
  if (ejection === undefined) return detail;
  evictEjected(deps.queues, candidate.node, ejection, now, candidate.model);
  return `${detail}; node ejected for ${secondsLeft(ejection, now)} s`;
}

/** How often a request waiting in a queue has the fleet's latest polls judged (`CandidateDeps.whileWaiting`). */
const WAITING_CHECK_MS = 1000;

async function takeSlot(
  candidate: RankedCandidate,
  deps: CandidateDeps,
  signal: AbortSource,
): Promise<{ readonly slot: Slot } | { readonly failure: AttemptFailure }> {
  // While it waits, a node that stopped answering its polls is ejected and this waiter moves on, with no
  // other request needed to notice (one timer per waiting request; a free slot never gets here).
  const check = deps.whileWaiting === undefined ? undefined : setInterval(deps.whileWaiting, WAITING_CHECK_MS);
  check?.unref();
  const since = deps.clock();
  // Its place in line: the requests already waiting, and itself.
  const place = Math.max(1, deps.queues.depth(candidate.node.id, candidate.model) - candidate.limit + 1);
  try {
    const slot = await deps.queues.acquire(candidate.node.id, candidate.model, candidate.limit, signal, deps.claim);
    deps.waits?.recordQueueWait(candidate.node.id, candidate.model, deps.clock() - since, place);
    return { slot };
  } catch (error) {
    if (signal.aborted) throw new RequestAbortedError();
    if (!(error instanceof ServiceUnavailableError)) throw error;
    if (error.code === 'node_ejected') return { failure: ejectedFailure(candidate, error) };
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
  } finally {
    if (check !== undefined) clearInterval(check);
    if (deps.queued !== undefined) deps.queued.waitedMs += deps.clock() - since;
  }
}

export async function tryCandidate(
  candidate: RankedCandidate,
  deps: CandidateDeps,
  signal: AbortSource,
): Promise<CandidateOutcome> {
  // Ejected since it was ranked (another request's failure): not tried — unless it was ranked ejected,
  // because every candidate is (rank-nodes' panic).
  const ejection = candidate.ejected ? undefined : deps.ejection;
  const before = ejection?.ejected(targetOf(candidate), deps.clock());
  if (before !== undefined) {
    return {
      kind: 'failed',
      failure: ejectedFailure(candidate, ejectedWhileWaiting(before, candidate.model, deps.clock())),
    };
  }
  // A free slot is taken at once: no promise for the usual case of a node with room.
  let slot = signal.aborted ? undefined : deps.queues.tryAcquire(candidate.node.id, candidate.model, candidate.limit);
  if (slot === undefined) {
    const taken = await takeSlot(candidate, deps, signal);
    if ('failure' in taken) return { kind: 'failed', failure: taken.failure };
    slot = taken.slot;
    const meanwhile = ejection?.ejected(targetOf(candidate), deps.clock());
    if (meanwhile !== undefined && !signal.aborted) {
      slot.release('cancelled');
      const error = ejectedWhileWaiting(meanwhile, candidate.model, deps.clock());
      return { kind: 'failed', failure: ejectedFailure(candidate, error) };
    }
  }
  if (signal.aborted) {
    slot.release('cancelled');
    throw new RequestAbortedError();
  }
  const attempt: NodeAttempt = { node: candidate.node, placement: candidate.placement, model: candidate.model };
  // A node that failed now may answer in a moment (or be passed over for a peer): a client retry can help.
  const base = { nodeId: candidate.node.id, model: candidate.model, clientRetryHelps: true } as const;
  const sentAt = deps.clock();
  const evaluated = deps.prefill?.begin(
    candidate.node.id,
    candidate.model,
    candidate.evaluates,
    sentAt + candidate.ttft.loadMs,
  );
  let reply: NodeReply;
  try {
    reply = await deps.send(attempt, signal);
  } catch (error) {
    evaluated?.();
    if (signal.aborted) {
      slot.release('cancelled');
      throw new RequestAbortedError();
    }
    const failedAt = deps.clock();
    // Words for the client (the ejection's reason reaches clients too); the URL and undici's code go to
    // the trace and the log only.
    const words = nodeFailureWords(error);
    const detail = noteFailure(candidate, deps, failureCause(error), words, words, failedAt);
    slot.release('failed');
    return {
      kind: 'failed',
      failure: { ...base, kind: 'unreachable', detail, cause: technicalCause(error), failedAt },
    };
  }
  evaluated?.();
  if (signal.aborted) {
    reply.cancel();
    slot.release('cancelled');
    throw new RequestAbortedError();
  }
  if (reply.status >= 500) {
    reply.cancel();
    const failedAt = deps.clock();
    const what = `failed (HTTP ${reply.status})`;
    const detail = noteFailure(candidate, deps, 'server-error', what, what, failedAt);
    slot.release('failed');
    return { kind: 'failed', failure: { ...base, kind: 'server-error', detail, failedAt } };
  }
  // A 4xx is a whole answer, the client's mistake: the node works. A 2xx counts once its reply has
  // ended whole (the served slot's release, ./dispatcher): a node that cuts its replies after the first
  // bytes fails in a row.
  if (reply.status >= 400) deps.ejection?.recordSuccess(targetOf(candidate));
  return { kind: 'served', attempt, reply, slot, sentAt };
}
