/** Fleet management: status and queue views, and node agents' heartbeats (spec §4.6, ARCHITECTURE.md §8.2). */
import { toFleetQueue } from '../lib/core/views/fleet-queue';
import { toFleetStatus } from '../lib/core/views/fleet-status';
import { mergeQueues } from '../lib/core/views/merge-queues';
import { queuesFromSnapshot } from '../lib/core/views/queues-from-snapshot';
import { isDrainHeartbeat, parseHeartbeat } from '../lib/core/wire/heartbeat';
import { getServices, handlerOptions } from '../lib/instance';
import { ejectionStatesAsOf } from '../lib/services/dispatch/evict-ejected';
import { createHandler, nodeRoute, type Route, type RouteTable } from '../lib/services/http/handler';
import { readJson, requireValid } from '../lib/services/http/parse-json';
import { sendJson } from '../lib/services/http/reply';

/** The snapshot and the queues: the router's own, from every instance, over what nodes report. */
async function fleetState() {
  const { registry, queueView } = getServices();
  const now = Date.now();
  const [snapshot, routed] = await Promise.all([registry.snapshot(), queueView(now)]);
  return { snapshot, queues: mergeQueues(queuesFromSnapshot(snapshot), routed), now, freshness: registry.freshness() };
}

const status: Route = async (_request, response) => {
  const { snapshot, queues, now, freshness } = await fleetState();
  const { ejection, queues: routed } = getServices().routing;
  const health = ejectionStatesAsOf(ejection, snapshot, routed, now);
  await sendJson(response, toFleetStatus(snapshot, queues, now, health, freshness));
};

const queue: Route = async (_request, response) => {
  const { snapshot, queues, now } = await fleetState();
  await sendJson(response, toFleetQueue(snapshot, queues, now));
};

const heartbeat: Route = async (request, response) => {
  const payload = requireValid(parseHeartbeat(readJson(request)));
  const { registry } = getServices();
  const reply = isDrainHeartbeat(payload)
    ? await registry.recordDrain(payload.node_id, request.sourceIp)
    : await registry.recordHeartbeat(payload, request.sourceIp);
  await sendJson(response, reply);
};

export const routes: RouteTable = {
  'GET /fleet/status': status,
  'GET /fleet/queue': queue,
  // Node agents' routes: node keys only (ARCHITECTURE.md §8.2), never client keys.
  'POST /heartbeat': nodeRoute(heartbeat),
  'POST /fleet/heartbeat': nodeRoute(heartbeat),
};

export const handler = createHandler(routes, handlerOptions);
