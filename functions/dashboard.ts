/**
 * The dashboard surface (spec §4.7, issue 22): the runtime settings, read and changed; the analytics read
 * from the rollups; the live events stream; and `/metrics` for Prometheus.
 */

import { serveApps, serveAppsDaily } from '../lib/features/analytics/serve-apps';
import { serveContextUsage } from '../lib/features/analytics/serve-context-usage';
import { serveEvents } from '../lib/features/events/serve-events';
import { createMetricsPage } from '../lib/features/metrics/metrics-page';
import { serveMetrics } from '../lib/features/metrics/serve-metrics';
import { serveSettings, serveSettingsUpdate } from '../lib/features/settings/serve-settings';
import { getServices, handlerOptions, type Services } from '../lib/instance';
import { createHandler, type RouteTable } from '../lib/services/http/handler';

export const routes = (services: Services): RouteTable => {
  const metrics = createMetricsPage(services);
  const events = { ...services, health: services.healthScore };
  return {
    'GET /dashboard/api/settings': (request, response) => serveSettings(services, request, response),
    'POST /dashboard/api/settings': (request, response) => serveSettingsUpdate(services, request, response),
    // Analytics, from the rollups.
    'GET /dashboard/api/apps': (request, response) => serveApps(services, request, response),
    'GET /dashboard/api/tags': (request, response) => serveApps(services, request, response),
    'GET /dashboard/api/apps/daily': (request, response) => serveAppsDaily(services, request, response),
    'GET /dashboard/api/tags/daily': (request, response) => serveAppsDaily(services, request, response),
    'GET /dashboard/api/context-usage': (request, response) => serveContextUsage(services, request, response),
    // Live and scraped.
    'GET /dashboard/events': (request, response) => serveEvents(events, {}, request, response),
    'GET /metrics': (request, response) => serveMetrics(metrics, request, response),
  };
};

export const handler = createHandler(() => routes(getServices()), handlerOptions);
