/**
 * `POST /heartbeat` and `POST /fleet/heartbeat` (ARCHITECTURE.md §8.2): a node agent's heartbeat, or its drain
 * notice, recorded by the registry, which answers what the agent is told.
 */
import { isDrainHeartbeat, parseHeartbeat } from '../../core/wire/heartbeat';
import { readJson, requireValid } from '../../services/http/parse-json';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { FleetRegistry } from '../../services/registry/registry';

/** What a heartbeat uses from the instance: the registry that records it. */
export interface HeartbeatDeps {
  readonly registry: Pick<FleetRegistry, 'recordHeartbeat' | 'recordDrain'>;
}

export async function serveHeartbeat(deps: HeartbeatDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const payload = requireValid(parseHeartbeat(readJson(request)));
  const reply = isDrainHeartbeat(payload)
    ? await deps.registry.recordDrain(payload.node_id, request.sourceIp)
    : await deps.registry.recordHeartbeat(payload, request.sourceIp);
  await sendJson(response, reply);
}
