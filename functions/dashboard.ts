/** The dashboard surface (spec §4.7): the runtime settings, read and changed; the analytics views. */

import { serveModels } from '../lib/features/analytics/serve-models';
import { serveOverview } from '../lib/features/analytics/serve-overview';
import { serveTraces } from '../lib/features/analytics/serve-traces';
import { serveTrends } from '../lib/features/analytics/serve-trends';
import { serveUsage } from '../lib/features/analytics/serve-usage';
import { serveSettings, serveSettingsUpdate } from '../lib/features/settings/serve-settings';
import { getServices, handlerOptions, type Services } from '../lib/instance';
import { createHandler, type RouteTable } from '../lib/services/http/handler';

export const routes = (services: Services): RouteTable => ({
  'GET /dashboard/api/settings': (request, response) => serveSettings(services, request, response),
  'POST /dashboard/api/settings': (request, response) => serveSettingsUpdate(services, request, response),
  'GET /dashboard/api/overview': (request, response) => serveOverview(services, request, response),
  'GET /dashboard/api/traces': (request, response) => serveTraces(services, request, response),
  'GET /dashboard/api/usage': (request, response) => serveUsage(services, request, response),
  'GET /dashboard/api/models': (request, response) => serveModels(services, request, response),
  'GET /dashboard/api/trends': (request, response) => serveTrends(services, request, response),
});

export const handler = createHandler(() => routes(getServices()), handlerOptions);
