/**
 * Health checks on the nodes themselves (issue 22 item 3): offline, degraded, draining, failing their
 * polls, ejected from routing, none left to route to, and a fleet snapshot this instance cannot refresh.
 * Each is silent while every node is online and answering. Pure.
 */
import { silentForMs } from '../fleet/node-status';
import { isPlaceable } from '../fleet/snapshot';
import { finding, type HealthChecks } from './health-finding';
import { noNodes } from './skip-reasons';

/** The snapshot may be this much older than the registry's own bound before it counts as stale. */
export const STALE_SNAPSHOT_MS = 60_000;

const seconds = (ms: number) => Math.round(ms / 1000);

export const NODE_CHECKS: HealthChecks = {
  node_offline: {
    title: 'Nodes offline',
    severity: 'critical',
    skip: noNodes,
    run: ({ snapshot, now }) =>
      snapshot.nodes
        // A draining node is offline on purpose (it said so): node_draining speaks of it.
        .filter((node) => node.status === 'offline' && !node.draining)
        .map((node) => {
          const silentMs = silentForMs(node, now);
          const seenAgo = silentMs === undefined ? null : seconds(silentMs);
          return finding('node_offline', {
            severity: 'critical',
            title: `${node.id} is offline`,
            description:
              seenAgo === null
                ? `${node.id} has never answered a poll or sent a heartbeat; it takes no work.`
                : `No good poll or heartbeat from ${node.id} for ${seenAgo} s; it takes no work.`,
            fix: 'Check that the machine is up and its Ollama (or node agent) is running and reachable from the router.',
            nodeId: node.id,
            data: { last_seen_ago_s: seenAgo, last_error: node.lastError ?? null },
          });
        }),
  },
  node_degraded: {
    title: 'Nodes degraded',
    severity: 'warning',
    skip: noNodes,
    run: ({ snapshot, now }) =>
      snapshot.nodes
        .filter((node) => node.status === 'degraded')
        .map((node) =>
          finding('node_degraded', {
            severity: 'warning',
            title: `${node.id} is degraded`,
            description: `${node.id} missed its recent polls or heartbeats (last seen ${seconds(now - node.lastSeenAt)} s ago); it is still routed to.`,
            fix: 'Check the network between the router and the node, and whether the node is overloaded.',
            nodeId: node.id,
            data: { last_seen_ago_s: seconds(now - node.lastSeenAt), last_error: node.lastError ?? null },
          }),
        ),
  },
  node_draining: {
    title: 'Nodes draining',
    severity: 'info',
    skip: noNodes,
    run: ({ snapshot }) =>
      snapshot.nodes
        .filter((node) => node.draining)
        .map((node) =>
          finding('node_draining', {
            severity: 'info',
            title: `${node.id} is draining`,
            description: `${node.id} said it is shutting down or taking no new work (it counts as offline); the rest of the fleet serves its share.`,
            fix: 'Nothing if this is planned maintenance; otherwise restart the node agent so it takes work again.',
            nodeId: node.id,
            data: { requests_active: node.requestsActive },
          }),
        ),
  },
  node_poll_failing: {
    title: 'Node polls failing',
    severity: 'warning',
    skip: noNodes,
    run: ({ snapshot }) =>
      snapshot.nodes
        .filter(
          (node) => node.status === 'online' && node.lastErrorAt !== undefined && node.lastErrorAt > node.lastSeenAt,
        )
        .map((node) =>
          finding('node_poll_failing', {
            severity: 'warning',
            title: `${node.id}'s last poll failed`,
            description: `The router's last poll of ${node.id} failed: ${node.lastError ?? 'no detail'}. It turns degraded if this goes on.`,
            fix: "Check the node's Ollama: it may be restarting, hung on a model load or out of memory.",
            nodeId: node.id,
            data: { last_error: node.lastError ?? null, last_error_at: node.lastErrorAt ?? null },
          }),
        ),
  },
  node_ejected: {
    title: 'Nodes taken out of routing',
    severity: 'warning',
    run: ({ ejections, now }) =>
      ejections.map((ejection) =>
        finding('node_ejected', {
          severity: 'warning',
          title: `${ejection.nodeId} (${ejection.backend}) is out of routing`,
          description: `This router took ${ejection.nodeId}'s ${ejection.backend} out of routing for failing (${ejection.reason}); it returns in ${seconds(ejection.until - now)} s.`,
          fix: "Look at the node's logs around the failures; ejections that keep coming back point at a node that needs a restart.",
          nodeId: ejection.nodeId,
          data: {
            backend: ejection.backend,
            cause: ejection.cause,
            reason: ejection.reason,
            level: ejection.level,
            returns_in_s: seconds(ejection.until - now),
          },
        }),
      ),
  },
  fleet_unavailable: {
    title: 'Some node can take work',
    severity: 'critical',
    run: ({ snapshot }) =>
      snapshot.nodes.some(isPlaceable)
        ? []
        : [
            finding('fleet_unavailable', {
              severity: 'critical',
              title: 'No node can take work',
              description:
                snapshot.nodes.length === 0
                  ? 'The router knows no node: every request fails.'
                  : `All ${snapshot.nodes.length} known nodes are offline or draining: every request fails.`,
              fix: 'List nodes in FLEET_NODES or start a node agent pointed at this router, and check they are reachable.',
              data: { nodes_total: snapshot.nodes.length },
            }),
          ],
  },
  snapshot_stale: {
    title: 'The fleet view is fresh',
    severity: 'critical',
    run: ({ freshness }) =>
      freshness.refreshFailed || (freshness.ageMs !== undefined && freshness.ageMs > STALE_SNAPSHOT_MS)
        ? [
            finding('snapshot_stale', {
              severity: 'critical',
              title: 'The fleet view cannot be refreshed',
              description: `This instance could not read the nodes from the table${freshness.ageMs === undefined ? '' : ` for ${seconds(freshness.ageMs)} s`}: it routes on an old view of the fleet.`,
              fix: 'Check the table (DynamoDB) is reachable and the function may read it; see the router log for the error.',
              data: {
                snapshot_refresh_failed: freshness.refreshFailed,
                snapshot_age_ms: freshness.ageMs ?? null,
              },
            }),
          ]
        : [],
  },
};
