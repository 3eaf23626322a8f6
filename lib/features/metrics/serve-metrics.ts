/**
 * `GET /metrics` (issue 22 item 9): the fleet in Prometheus's text format 0.0.4, for an existing
 * Prometheus and Grafana. Behind `FLEET_API_KEYS` like every client route (a scrape config sends
 * `authorization: Bearer <key>`).
 */
import { EXPOSITION_CONTENT_TYPE } from '../../core/metrics/exposition';
import { sendText } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { MetricsPage } from './metrics-page';

export async function serveMetrics(page: MetricsPage, _request: HttpRequest, response: ResponseSink): Promise<void> {
  await sendText(response, await page.text(), 200, { 'content-type': EXPOSITION_CONTENT_TYPE });
}
