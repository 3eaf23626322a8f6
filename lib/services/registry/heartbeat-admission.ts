/**
 * Which heartbeats may change a node (ARCHITECTURE.md §8.2, issue 19 item 2): a heartbeat names its node by
 * `node_id` only, so without these rules anyone who can reach `/heartbeat` could point a node's traffic
 * at themselves or take it out of routing.
 *
 * - A listed node (FLEET_NODES) is the poller's: no heartbeat overwrites or drains it.
 * - With node keys (FLEET_NODE_KEYS) every heartbeat reaching the registry carried one (the handler
 *   wrapper refuses the rest), so it speaks for its node: it may move the node to a new address or
 *   drain it.
 * - Without node keys (an open router) an agent node stays at its address while it is live: a heartbeat
 *   resolving to another address is refused until the node is offline or drained, and a drain is taken
 *   only from the node's own address.
 *
 * Refusals are 409 naming the node by id (never its address) and saying how to move it. Pure: the clock
 * comes in as `now`.
 */

import { ConflictError } from '../../core/errors';
import { isLocalOnlyHost } from '../../core/fleet/from-heartbeat';
import type { NodeRecord } from '../../core/fleet/node';
import { type LivenessThresholds, nodeStatus } from '../../core/fleet/node-status';
import type { FleetConfig } from '../platform/config';

export interface HeartbeatAdmission {
  /** Ids of the listed nodes (FLEET_NODES). */
  readonly listedIds: ReadonlySet<string>;
  /** Node keys are configured, so every heartbeat that reaches the registry was authenticated with one. */
  readonly authenticated: boolean;
}

/** The rules a config sets: its listed node ids, and whether node agents authenticate. */
export function heartbeatAdmission(config: Pick<FleetConfig, 'nodes' | 'nodeKeys'>): HeartbeatAdmission {
  return {
    listedIds: new Set(config.nodes.map((node) => node.id)),
    authenticated: config.nodeKeys !== undefined && config.nodeKeys.length > 0,
  };
}

/** No node keys, no listed nodes: what a registry built without rules of its own applies. */
export const OPEN_ADMISSION: HeartbeatAdmission = { listedIds: new Set(), authenticated: false };

function refuseListed(admission: HeartbeatAdmission, id: string, previous: NodeRecord | undefined, live: boolean) {
  // A polled record still live is a listed node too (on an instance whose FLEET_NODES is behind).
  if (admission.listedIds.has(id) || (previous?.source === 'listed' && live)) {
    throw new ConflictError(
      `node "${id}" is a listed node (FLEET_NODES), polled by the router; a heartbeat cannot change it: give the agent another node_id`,
    );
  }
}

const HOW_TO_MOVE =
  'drain it from its own address, wait until it is offline (no heartbeat for the offline interval), or configure FLEET_NODE_KEYS so node agents authenticate';

export interface Liveness {
  readonly now: number;
  readonly thresholds: LivenessThresholds;
}

function isLive(previous: NodeRecord | undefined, liveness: Liveness): previous is NodeRecord {
  return previous !== undefined && nodeStatus(previous, liveness.now, liveness.thresholds) !== 'offline';
}

/** Throws unless a full heartbeat resolving to `url` may replace `previous`. */
export function admitHeartbeat(
  admission: HeartbeatAdmission,
  id: string,
  url: string,
  previous: NodeRecord | undefined,
  liveness: Liveness,
): void {
  const live = isLive(previous, liveness);
  refuseListed(admission, id, previous, live);
  if (admission.authenticated || !live || previous.url === url) return;
  throw new ConflictError(`node "${id}" is registered at another address; to move it, ${HOW_TO_MOVE}`);
}

function bareHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, '')
    .replace(/^::ffff:/i, '')
    .toLowerCase();
}

/** The heartbeat came from the machine the node's traffic goes to. */
export function fromNodeAddress(record: Pick<NodeRecord, 'url'>, peerIp: string | undefined): boolean {
  if (peerIp === undefined || peerIp === '') return false;
  let host: string;
  try {
    host = bareHost(new URL(record.url).hostname);
  } catch {
    return false;
  }
  const peer = bareHost(peerIp);
  // A loopback agent is stored at 127.0.0.1 whatever loopback form it came from.
  if (isLocalOnlyHost(peer)) return isLocalOnlyHost(host);
  return peer === host;
}

/** Throws unless a drain message from `peerIp` may take `previous` out of routing. */
export function admitDrain(
  admission: HeartbeatAdmission,
  id: string,
  previous: NodeRecord | undefined,
  peerIp: string | undefined,
  liveness: Liveness,
): void {
  refuseListed(admission, id, previous, isLive(previous, liveness));
  if (admission.authenticated || previous === undefined || fromNodeAddress(previous, peerIp)) return;
  throw new ConflictError(
    `node "${id}" can be drained only from its own address, or by an agent with a node key (FLEET_NODE_KEYS)`,
  );
}
