/**
 * Outlier ejection (issue 19 item 4; Envoy's outlier detection, HAProxy's `observe layer7`): a node
 * whose attempts fail is taken out of routing for a while, so one hung or dead node stops costing every
 * request a first-byte time-out. Thresholds:
 * - a refused or timed-out connect, or no first byte within the first-byte deadline: ejected at once
 *   (the machine is down or stuck; trying it again costs the next request the same wait);
 * - a failed poll (a listed node whose latest poll failed, as the snapshot says): ejected at once, so
 *   a node that stopped answering is out within a poll deadline, long before a chat's first-byte one;
 * - a 5xx answer, a connection cut before the first byte or a reply the node cut mid-way: ejected after
 *   `consecutiveFailures` in a row (default 3; one bad answer is often the model's, not the node's).
 * An ejection lasts `baseMs` × 2^(n−1) for the node's n-th ejection in a row, capped at `maxMs`; the
 * node returns on its own when it ends, or — unless a missed first byte ejected it — at the first good
 * poll after it. The level n falls by one for every `baseMs` the node goes
 * without an ejection, so a node that recovered starts again from `baseMs`. A 4xx answer, or a 2xx
 * reply that ended whole, clears the count of failures in a row. Failures while ejected (attempts sent before) change nothing.
 *
 * What is ejected is one service of a node — its Ollama, or one of its sidecars (image, speech-to-text,
 * text embedding): a dead image sidecar says nothing about the node's chat models.
 *
 * Shared by every router instance (issue 45): an ejection this instance decides after a refused
 * connect, a missed first byte or a run of failures is published once through the table (`publish`,
 * one write per ejection, none per request), and every instance adopts the ejections others published
 * as its snapshot reads bring them (`adopt`), so a Lambda container that starts fresh does not send its
 * first request to a node another one ejected seconds ago. An ejection for a failed poll is not
 * published: the failed poll is in the node's record, which every instance reads and judges alike.
 * An adopted ejection ends as a local one does (its time, or a good poll or heartbeat after it), or
 * when it is no longer published. Holds state; the time comes in with every call.
 */

import { type Ejection, type EjectionTarget, type FailureCause, targetKey } from '../../core/fleet/ejection';
import type { NodeView } from '../../core/fleet/node';
import { endedByRecord } from '../../core/fleet/shared-ejections';

/** One node's standing, for `/fleet/status`. */
export interface NodeHealthState extends EjectionTarget {
  readonly consecutiveFailures: number;
  readonly ejection?: Ejection;
}

export interface OutlierEjectionOptions {
  /** 5xx answers or cut connections in a row that eject a node; 0 turns ejection off. */
  readonly consecutiveFailures: number;
  readonly baseMs: number;
  readonly maxMs: number;
}

export interface OutlierEjection {
  /** The service's ejection when it is out of routing at `now`. */
  ejected(target: EjectionTarget, now: number): Ejection | undefined;
  /** Every ejection in force at `now`, by `targetKey` (empty almost always: routing checks `size` first). */
  ejections(now: number): ReadonlyMap<string, Ejection>;
  /** Counts a failed attempt; returns the ejection when this failure ejected the service. */
  recordFailure(target: EjectionTarget, cause: FailureCause, detail: string, now: number): Ejection | undefined;
  /** An answer (2xx, or a 4xx that is the client's): the failures in a row start again from zero. */
  recordSuccess(target: EjectionTarget): void;
  /** Nodes with failures counted or an ejection, for the status views. */
  states(now: number): NodeHealthState[];
  /**
   * Ejects each node whose latest poll failed (`lastErrorAt` in the snapshot; a good poll clears it),
   * once per failed poll; returns the new ejections. Cheap to call per request: a snapshot's nodes are
   * read once.
   */
  fromPolls(nodes: readonly NodeView[], now: number): Ejection[];
  /**
   * Takes on the ejections other instances published (a snapshot's `ejections`, read once per snapshot)
   * and drops the adopted ones no longer published; returns the newly adopted ones.
   */
  adopt(published: readonly Ejection[] | undefined, now: number): Ejection[];
}

/** How this instance shares its ejections with the others (issue 45). */
export interface EjectionSharing {
  /** This instance's id: what its ejections say saw them, and how it tells its own from others'. */
  readonly instanceId: string;
  /** Publishes an ejection this instance decided (one table write); must not throw. */
  readonly publish?: (ejection: Ejection) => void;
}

export const DEFAULT_EJECTION: OutlierEjectionOptions = { consecutiveFailures: 3, baseMs: 30_000, maxMs: 300_000 };

const AT_ONCE: ReadonlySet<FailureCause> = new Set(['connect', 'first-byte-timeout', 'poll']);

interface Health {
  readonly target: EjectionTarget;
  failures: number;
  ejection: Ejection | undefined;
}

/** undici and Node error codes that mean the node could not be reached at all, or said nothing in time. */
const CONNECT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const FIRST_BYTE_CODES: ReadonlySet<string> = new Set(['UND_ERR_HEADERS_TIMEOUT']);

function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = current.cause;
  }
  return codes;
}

/** Sorts a transport's rejection: by the undici/Node code anywhere on its `cause` chain. */
export function failureCause(error: unknown): FailureCause {
  const codes = errorCodes(error);
  if (codes.some((code) => CONNECT_CODES.has(code))) return 'connect';
  if (codes.some((code) => FIRST_BYTE_CODES.has(code))) return 'first-byte-timeout';
  return 'transport';
}

const CAUSE_WORDS: Readonly<Record<FailureCause, string>> = {
  connect: 'could not connect',
  'first-byte-timeout': 'no first byte in time',
  poll: 'its last poll failed',
  transport: 'connection failed',
  'server-error': 'server error',
};

export function createOutlierEjection(
  options: OutlierEjectionOptions = DEFAULT_EJECTION,
  sharing?: EjectionSharing,
): OutlierEjection {
  /** By `targetKey`: one entry per service that ever failed (bounded by the fleet's size). */
  const nodes = new Map<string, Health>();
  /** Ejections that have not been seen to end; tidied on read. */
  const active = new Map<string, Ejection>();
  const enabled = options.consecutiveFailures > 0;
  /** The snapshot's node list read last, and the failed poll (its `lastErrorAt`) each node was judged on. */
  let polledNodes: readonly NodeView[] | undefined;
  const pollsJudged = new Map<string, number>();
  /** The published ejections adopted last (a snapshot's `ejections`): each list is judged once. */
  let adoptedFrom: readonly Ejection[] | undefined;
  const self = sharing?.instanceId;
  const healthOf = (key: string, target: EjectionTarget): Health => {
    let health = nodes.get(key);
    if (health === undefined) {
      health = { target: { nodeId: target.nodeId, backend: target.backend }, failures: 0, ejection: undefined };
      nodes.set(key, health);
    }
    return health;
  };

  const current = (key: string, now: number): Ejection | undefined => {
    const ejection = active.get(key);
    if (ejection === undefined) return undefined;
    if (now < ejection.until) return ejection;
    active.delete(key);
    return undefined;
  };

  /** The level a new ejection gets: one above the last, less one per `baseMs` since the last ended. */
  const nextLevel = (last: Ejection | undefined, now: number): number => {
    if (last === undefined) return 1;
    const calm = Math.floor(Math.max(0, now - last.until) / options.baseMs);
    return Math.max(0, last.level - calm) + 1;
  };

  const eject = (key: string, health: Health, cause: FailureCause, reason: string, now: number): Ejection => {
    const level = nextLevel(health.ejection, now);
    const duration = Math.min(options.maxMs, options.baseMs * 2 ** (level - 1));
    const { nodeId, backend } = health.target;
    const ejection: Ejection = {
      nodeId,
      backend,
      at: now,
      until: now + duration,
      reason,
      level,
      cause,
      ...(self !== undefined ? { by: self } : {}),
    };
    health.ejection = ejection;
    health.failures = 0;
    active.set(key, ejection);
    // A failed poll is in the node's record already, for every instance to judge: nothing to publish.
    if (cause !== 'poll') sharing?.publish?.(ejection);
    return ejection;
  };

  const tracker: OutlierEjection = {
    ejected: (target, now) => (active.size === 0 ? undefined : current(targetKey(target.nodeId, target.backend), now)),
    ejections(now) {
      if (active.size === 0) return active;
      for (const key of [...active.keys()]) current(key, now);
      return active;
    },
    recordFailure(target, cause, detail, now) {
      const key = targetKey(target.nodeId, target.backend);
      if (!enabled || current(key, now) !== undefined) return undefined;
      const health = healthOf(key, target);
      health.failures += 1;
      if (AT_ONCE.has(cause)) return eject(key, health, cause, `${CAUSE_WORDS[cause]}: ${detail}`, now);
      if (health.failures < options.consecutiveFailures) return undefined;
      return eject(key, health, cause, `${health.failures} failures in a row, the last: ${detail}`, now);
    },
    recordSuccess(target) {
      const health = nodes.size === 0 ? undefined : nodes.get(targetKey(target.nodeId, target.backend));
      if (health !== undefined) health.failures = 0;
    },
    states(now) {
      return [...nodes.entries()].flatMap(([key, health]) => {
        const ejection = current(key, now);
        if (ejection === undefined && health.failures === 0) return [];
        const { nodeId, backend } = health.target;
        return [
          { nodeId, backend, consecutiveFailures: health.failures, ...(ejection !== undefined ? { ejection } : {}) },
        ];
      });
    },
    fromPolls(list, now) {
      if (!enabled || list === polledNodes) return [];
      polledNodes = list;
      const ejected: Ejection[] = [];
      for (const node of list) {
        const failedAt = node.lastErrorAt;
        if (failedAt === undefined) {
          // A good poll since the ejection: the node answers again and is back (RESTORED_BY_POLL).
          if (pollsJudged.size > 0) pollsJudged.delete(node.id);
          const standing = active.size === 0 ? undefined : active.get(node.id);
          if (standing !== undefined && endedByRecord(standing, node)) active.delete(node.id);
          continue;
        }
        // An old failure is the registry's to age out (degraded, offline), not news to eject on.
        if (pollsJudged.get(node.id) === failedAt || node.status === 'offline' || now - failedAt > options.baseMs) {
          continue;
        }
        pollsJudged.set(node.id, failedAt);
        // The reason reaches clients (a 503 names ejected nodes): the failure's words, never `lastError`'s URL.
        const detail = node.lastErrorWords ?? 'no usable answer';
        const ejection = tracker.recordFailure({ nodeId: node.id, backend: 'ollama' }, 'poll', detail, now);
        if (ejection !== undefined) ejected.push(ejection);
      }
      return ejected;
    },
    adopt(published, now) {
      if (!enabled || published === adoptedFrom) return [];
      adoptedFrom = published;
      const list = published ?? [];
      const adopted: Ejection[] = [];
      const listed = new Set<string>();
      for (const ejection of list) {
        const key = targetKey(ejection.nodeId, ejection.backend);
        listed.add(key);
        const standing = current(key, now);
        if (now >= ejection.until || (standing !== undefined && standing.until >= ejection.until)) continue;
        // The one that lasts longer stands, whoever saw it: two instances that failed on the node at once
        // each publish, and the table keeps the later write.
        const health = healthOf(key, ejection);
        health.ejection = ejection;
        active.set(key, ejection);
        if (ejection.by === undefined || ejection.by !== self) adopted.push(ejection);
      }
      // An adopted ejection whose node has none published any more was ended (a good poll or heartbeat,
      // as another instance recorded it): it ends here too. This instance's own stand on its own evidence.
      for (const [key, ejection] of [...active]) {
        if (ejection.by === undefined || ejection.by === self || listed.has(key)) continue;
        active.delete(key);
      }
      return adopted;
    },
  };
  return tracker;
}
