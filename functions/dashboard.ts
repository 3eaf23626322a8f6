/** The dashboard surface (spec §4.7): the runtime settings, read and changed. */

import { settingsUpdateSchema } from '../lib/core/wire/settings';
import { settingsView, toOverrides } from '../lib/features/settings/settings-view';
import { getServices, handlerOptions } from '../lib/instance';
import { createHandler, type Route, type RouteTable } from '../lib/services/http/handler';
import { readJsonBody } from '../lib/services/http/parse-json';
import { sendJson } from '../lib/services/http/reply';

const settings: Route = async (_request, response) => {
  const services = getServices();
  await sendJson(response, settingsView(services.config, await services.settings.current()));
};

const updateSettings: Route = async (request, response) => {
  const update = readJsonBody(request, settingsUpdateSchema);
  const services = getServices();
  const current = await services.settings.update(toOverrides(update));
  await sendJson(response, settingsView(services.config, current));
};

export const routes: RouteTable = {
  'GET /dashboard/api/settings': settings,
  'POST /dashboard/api/settings': updateSettings,
};

export const handler = createHandler(routes, handlerOptions);
