/**
 * `GET` and `POST /dashboard/api/settings` (spec §4.7): the runtime settings with the configuration the
 * instance started with, read, and changed by an operator. A change is kept in the table, so it holds on
 * every instance within a second and after a restart; a setting sent as `null` drops the operator's value,
 * and every instance follows its environment's again. Only settings every request can honour at once are
 * changeable here (image generation, speech-to-text); the rest of `config` is read once at start. A change
 * takes an operator key (functions/dashboard.ts) and is traced with it (issue 46).
 */
import { settingsUpdateSchema } from '../../core/wire/settings';
import { tracedChange } from '../../services/analytics/change-trace';
import type { TraceRecorder } from '../../services/analytics/trace';
import { readJsonBody } from '../../services/http/parse-json';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import type { FleetConfig } from '../../services/platform/config';
import type { RuntimeSettings } from '../../services/settings/runtime-settings';
import { settingsView, toOverrides } from './settings-view';

/** What the settings routes use from the instance: the configuration it started with, the settings, the traces. */
export interface SettingsDeps {
  readonly config: FleetConfig;
  readonly settings: Pick<RuntimeSettings, 'current' | 'overrides' | 'update'>;
  readonly traces: TraceRecorder;
}

export async function serveSettings(deps: SettingsDeps, _request: HttpRequest, response: ResponseSink): Promise<void> {
  const [current, overrides] = await Promise.all([deps.settings.current(), deps.settings.overrides()]);
  await sendJson(response, settingsView(deps.config, current, overrides));
}

export async function serveSettingsUpdate(
  deps: SettingsDeps,
  request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const update = readJsonBody(request, settingsUpdateSchema);
  const current = await tracedChange(deps.traces, { request, style: 'settings' }, () =>
    deps.settings.update(toOverrides(update)),
  );
  await sendJson(response, settingsView(deps.config, current, await deps.settings.overrides()));
}
