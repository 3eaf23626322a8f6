/**
 * `GET /dashboard/api/whoami` (issue 46): which role the page's key has, and nothing more —
 * `{"role": "operator" | "client" | "open"}` (../../services/http/api-keys `pageRole`). The page shows
 * pulls, deletes, settings switches and benchmark starts to operators (and on an open router), and the
 * same views read-only to anyone else. Takes client keys like every read: a key no list holds gets 401.
 */
import { type PageRole, pageRole } from '../../services/http/api-keys';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { FleetConfig } from '../../services/platform/config';

export interface WhoamiDeps {
  readonly config: Pick<FleetConfig, 'apiKeys' | 'adminKeys'>;
}

export async function serveWhoami(deps: WhoamiDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const role: PageRole = pageRole(deps.config, request.caller);
  // The answer depends on the key sent: no cache may keep it for another.
  await sendJson(response, { role }, 200, { 'cache-control': 'no-store' });
}
