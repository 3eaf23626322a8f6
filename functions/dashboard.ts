/** The dashboard surface (spec §4.7): the runtime settings, read and changed; the fleet's health. */

import { serveHealth } from '../lib/features/health/serve-health';
import { serveSettings, serveSettingsUpdate } from '../lib/features/settings/serve-settings';
import { getServices, handlerOptions, type Services } from '../lib/instance';
import { createHandler, type RouteTable } from '../lib/services/http/handler';

export const routes = (services: Services): RouteTable => ({
  'GET /dashboard/api/health': (request, response) => serveHealth(services, request, response),
  'GET /dashboard/api/settings': (request, response) => serveSettings(services, request, response),
  'POST /dashboard/api/settings': (request, response) => serveSettingsUpdate(services, request, response),
});

export const handler = createHandler(() => routes(getServices()), handlerOptions);
