/**
 * `GET` and `POST /dashboard/api/settings` (spec §4.7): the runtime settings with the configuration the
 * instance started with, read, and changed by an operator.
 */
import { settingsUpdateSchema } from '../../core/wire/settings';
import type { Route } from '../../services/http/handler';
import { readJsonBody } from '../../services/http/parse-json';
import { sendJson } from '../../services/http/reply';
import type { FleetConfig } from '../../services/platform/config';
import type { RuntimeSettings } from '../../services/settings/runtime-settings';
import { settingsView, toOverrides } from './settings-view';

export interface SettingsSources {
  readonly config: FleetConfig;
  readonly settings: Pick<RuntimeSettings, 'current' | 'update'>;
}

export function serveSettings(sources: SettingsSources): Route {
  return async (_request, response) => {
    await sendJson(response, settingsView(sources.config, await sources.settings.current()));
  };
}

export function serveSettingsUpdate(sources: SettingsSources): Route {
  return async (request, response) => {
    const update = readJsonBody(request, settingsUpdateSchema);
    const current = await sources.settings.update(toOverrides(update));
    await sendJson(response, settingsView(sources.config, current));
  };
}
