/** Fleet management: status and queue views, and node agents' heartbeats (spec §4.6, contract §3.2). */
import { BadRequestError } from '../lib/errors';
import { toFleetQueue } from '../lib/fleet/views/fleet-queue';
import { toFleetStatus } from '../lib/fleet/views/fleet-status';
import { queuesFromSnapshot } from '../lib/fleet/views/queues-from-snapshot';
import { createHandler, type Route, type RouteTable } from '../lib/http/handler';
import { readJson } from '../lib/http/parse-json';
import { sendJson } from '../lib/http/reply';
import { getServices, handlerOptions } from '../lib/services';
import { isDrainHeartbeat, parseHeartbeat } from '../lib/wire/heartbeat';

const status: Route = async (_request, response) => {
  const snapshot = await getServices().registry.snapshot();
  await sendJson(response, toFleetStatus(snapshot, queuesFromSnapshot(snapshot), Date.now()));
};

const queue: Route = async (_request, response) => {
  const snapshot = await getServices().registry.snapshot();
  await sendJson(response, toFleetQueue(snapshot, queuesFromSnapshot(snapshot), Date.now()));
};

const heartbeat: Route = async (request, response) => {
  const parsed = parseHeartbeat(readJson(request));
  if (!parsed.ok) throw new BadRequestError(`${parsed.field}: ${parsed.message}`, parsed.field);
  const { registry } = getServices();
  const payload = parsed.value;
  const reply = isDrainHeartbeat(payload)
    ? await registry.recordDrain(payload.node_id)
    : await registry.recordHeartbeat(payload, request.sourceIp);
  await sendJson(response, reply);
};

export const routes: RouteTable = {
  'GET /fleet/status': status,
  'GET /fleet/queue': queue,
  'POST /heartbeat': heartbeat,
  'POST /fleet/heartbeat': heartbeat,
};

export const handler = createHandler(routes, handlerOptions());
