/** Fleet management: status and queue views, and node agents' heartbeats (spec §4.6, ARCHITECTURE.md §8.2). */
import { serveFleetQueue, serveFleetStatus } from '../lib/features/fleet-status/serve-fleet-views';
import { serveHeartbeat } from '../lib/features/heartbeat/serve-heartbeat';
import { type FleetServices, getFleetServices, handlerOptions } from '../lib/fleet-instance';
import { createHandler, nodeRoute, type RouteTable } from '../lib/services/http/handler';

export function routes(services: FleetServices): RouteTable {
  const heartbeat = nodeRoute((request, response) => serveHeartbeat(services, request, response));
  return {
    'GET /fleet/status': (request, response) => serveFleetStatus(services, request, response),
    'GET /fleet/queue': (request, response) => serveFleetQueue(services, request, response),
    // Node agents' routes: node keys only (ARCHITECTURE.md §8.2), never client keys.
    'POST /heartbeat': heartbeat,
    'POST /fleet/heartbeat': heartbeat,
  };
}

export const handler = createHandler(() => routes(getFleetServices()), handlerOptions);
