/** The dashboard surface (spec §4.7): the runtime settings, read and changed; the analytics read. */

import { serveApps, serveAppsDaily } from '../lib/features/analytics/serve-apps';
import { serveContextUsage } from '../lib/features/analytics/serve-context-usage';
import { serveSettings, serveSettingsUpdate } from '../lib/features/settings/serve-settings';
import { getServices, handlerOptions, type Services } from '../lib/instance';
import { createHandler, type RouteTable } from '../lib/services/http/handler';

export const routes = (services: Services): RouteTable => ({
  'GET /dashboard/api/settings': (request, response) => serveSettings(services, request, response),
  'POST /dashboard/api/settings': (request, response) => serveSettingsUpdate(services, request, response),
  'GET /dashboard/api/apps': (request, response) => serveApps(services, request, response),
  'GET /dashboard/api/tags': (request, response) => serveApps(services, request, response),
  'GET /dashboard/api/apps/daily': (request, response) => serveAppsDaily(services, request, response),
  'GET /dashboard/api/tags/daily': (request, response) => serveAppsDaily(services, request, response),
  'GET /dashboard/api/context-usage': (request, response) => serveContextUsage(services, request, response),
});

export const handler = createHandler(() => routes(getServices()), handlerOptions);
