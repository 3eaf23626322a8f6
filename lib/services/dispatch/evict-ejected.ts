/**
 * What an ejection does to the queues (issue 19 item 4): everyone waiting for a slot on the ejected
 * service of a node leaves its line at once with a `node_ejected` 503, which the dispatcher reads as
 * "try the next candidate" (./try-candidate) — so requests queued behind a hung node reach a peer now,
 * not after their queue time-out. A waiter with no candidate left gets the 503 with Retry-After set to
 * the time the ejection has left. A failed poll ejects too (`ejectFromPolls`, called as a request is
 * routed on a new snapshot), and so does another instance's published one. No state of its own: it acts on the queue and the tracker it is given.
 */
import { ServiceUnavailableError } from '../../core/errors';
import type { Backend, Ejection } from '../../core/fleet/ejection';
import type { FleetSnapshot, NodeView } from '../../core/fleet/node';
import type { NodeHealthState, OutlierEjection } from './outlier-ejection';
import type { QueueManager } from './queue-manager';

/** Seconds until an ejection ends, at least 1: the Retry-After of a request that has nowhere else to go. */
export function secondsLeft(ejection: Ejection, now: number): number {
  return Math.max(1, Math.ceil((ejection.until - now) / 1000));
}

/** The error a waiter in an ejected service's queue leaves with. */
export function ejectedWhileWaiting(ejection: Ejection, model: string, now: number): ServiceUnavailableError {
  const seconds = secondsLeft(ejection, now);
  const what =
    ejection.backend === 'ollama'
      ? `node '${ejection.nodeId}'`
      : `the ${ejection.backend} sidecar of node '${ejection.nodeId}'`;
  return new ServiceUnavailableError(
    `${what} was ejected for ${seconds} s (${ejection.reason}) while waiting to run '${model}'`,
    { code: 'node_ejected', retryAfterSeconds: seconds },
  );
}

/** The models one service of a node serves: whose queues an ejection of that service empties. */
function servedBy(node: NodeView, backend: Backend): ReadonlySet<string> {
  if (backend === 'ollama') return new Set(node.models.map((model) => model.name));
  const sidecars = node.sidecars;
  const sidecar =
    backend === 'image'
      ? sidecars.image
      : backend === 'transcription'
        ? sidecars.transcription
        : sidecars.textEmbedding;
  return new Set((sidecar?.models ?? []).map((model) => model.name));
}

/** Sends away everyone queued on the ejected service of `node` (and on `model`, the queue it failed on). */
export function evictEjected(
  queues: QueueManager,
  node: NodeView,
  ejection: Ejection,
  now: number,
  model?: string,
): number {
  const served = servedBy(node, ejection.backend);
  return queues.evict(
    ejection.nodeId,
    (waitedFor) => ejectedWhileWaiting(ejection, waitedFor, now),
    (waitedFor) => waitedFor === model || served.has(waitedFor),
  );
}

/**
 * Takes on the ejections other instances published and ejects the nodes whose latest poll failed (once
 * per snapshot: both come with the snapshot's one read, issue 45), and moves the requests queued on them
 * on now.
 */
export function ejectFromPolls(ejection: OutlierEjection, snapshot: FleetSnapshot, queues: QueueManager, now: number) {
  const adopted = ejection.adopt(snapshot.ejections, now);
  const polled = ejection.fromPolls(snapshot.nodes, now);
  for (const ejected of adopted.length === 0 ? polled : [...adopted, ...polled]) {
    const node = snapshot.byId.get(ejected.nodeId);
    if (node !== undefined) evictEjected(queues, node, ejected, now);
  }
}

/**
 * The nodes' standing for the status views, as of `snapshot`: its polls are judged first (ejecting on a
 * failed one, ending an ejection a good one answers), as a routed request would, so what `/fleet/status`
 * shows does not wait for the next request to catch up.
 */
export function ejectionStatesAsOf(
  ejection: OutlierEjection,
  snapshot: FleetSnapshot,
  queues: QueueManager,
  now: number,
): NodeHealthState[] {
  ejectFromPolls(ejection, snapshot, queues, now);
  return ejection.states(now);
}
