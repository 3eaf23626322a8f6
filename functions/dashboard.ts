/**
 * The dashboard surface (spec §4.7): the runtime settings, read and changed; model-mix recommendations;
 * model management (each node's models with their usage, pull and delete on a node).
 */

import { serveDashboardDelete } from '../lib/features/model-admin/serve-dashboard-delete';
import { serveModelManagement } from '../lib/features/model-management/serve-model-management';
import { serveDashboardPull } from '../lib/features/pull/serve-dashboard-pull';
import { serveRecommendations } from '../lib/features/recommendations/serve-recommendations';
import { serveSettings, serveSettingsUpdate } from '../lib/features/settings/serve-settings';
import { getServices, handlerOptions, type Services } from '../lib/instance';
import { createHandler, type RouteTable } from '../lib/services/http/handler';

export const routes = (services: Services): RouteTable => ({
  'GET /dashboard/api/settings': (request, response) => serveSettings(services, request, response),
  'POST /dashboard/api/settings': (request, response) => serveSettingsUpdate(services, request, response),
  'GET /dashboard/api/recommendations': (request, response) => serveRecommendations(services, request, response),
  'GET /dashboard/api/model-management': (request, response) => serveModelManagement(services, request, response),
  'POST /dashboard/api/pull': (request, response) => serveDashboardPull(services, request, response),
  'POST /dashboard/api/delete': (request, response) => serveDashboardDelete(services, request, response),
});

export const handler = createHandler(() => routes(getServices()), handlerOptions);
