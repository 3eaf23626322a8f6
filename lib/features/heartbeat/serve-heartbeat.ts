/**
 * `POST /heartbeat` and `POST /fleet/heartbeat` (ARCHITECTURE.md §8.2): a node agent's heartbeat, or its drain
 * notice, recorded by the registry, which answers what the agent is told.
 */
import { isDrainHeartbeat, parseHeartbeat } from '../../core/wire/heartbeat';
import type { Route } from '../../services/http/handler';
import { readJson, requireValid } from '../../services/http/parse-json';
import { sendJson } from '../../services/http/reply';
import type { FleetRegistry } from '../../services/registry/registry';

export function serveHeartbeat(registry: Pick<FleetRegistry, 'recordHeartbeat' | 'recordDrain'>): Route {
  return async (request, response) => {
    const payload = requireValid(parseHeartbeat(readJson(request)));
    const reply = isDrainHeartbeat(payload)
      ? await registry.recordDrain(payload.node_id, request.sourceIp)
      : await registry.recordHeartbeat(payload, request.sourceIp);
    await sendJson(response, reply);
  };
}
