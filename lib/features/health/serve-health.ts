/**
 * `GET /dashboard/api/health` (issue 22 item 3): the instance's health report — vitals, findings and
 * score — from its monitor (./health-monitor), which serves a cached one while it is fresh.
 */
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { HealthMonitor } from './health-monitor';

export interface ServeHealthDeps {
  readonly health: HealthMonitor;
}

export async function serveHealth(deps: ServeHealthDeps, _request: HttpRequest, response: ResponseSink): Promise<void> {
  await sendJson(response, await deps.health.report(Date.now()));
}
