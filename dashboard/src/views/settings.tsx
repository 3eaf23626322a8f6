/**
 * The Settings view (issue 23; spec §4.7): the runtime settings as switches that take effect at once, the
 * configuration the router started with (read-only, grouped), the router's version and address, and the
 * API key this browser keeps, with a way to forget it.
 */
import { useState } from 'preact/hooks';
import type { HealthReport } from '../../../lib/core/health/health-report';
import type { SettingsView as SettingsAnswer } from '../../../lib/features/settings/settings-view';
import { ReadOnlyNote } from '../components/read-only-note';
import { WithData } from '../components/states';
import { Panel, View } from '../components/view';
import { NONE } from '../format';
import { useApi } from '../hooks';
import { currentKey, forgetKey, keyRequest } from '../key-store';
import { refreshRole, useMayChange } from '../role';
import { useStore } from '../store';
import { ConfigGroups } from './settings/config-groups';
import { RuntimeToggles } from './settings/runtime-toggles';
import './settings.css';

export function SettingsView() {
  const read = useApi<SettingsAnswer>('api/settings');
  /** The router's answer to the latest change, newer than the read. */
  const [latest, setLatest] = useState<SettingsAnswer | undefined>(undefined);
  const mayChange = useMayChange();
  return (
    <View title="Settings" summary="What the router runs with. The runtime settings change at once, on every instance.">
      <WithData read={read} what="the settings">
        {(data) => {
          const settings = latest ?? data;
          return (
            <>
              <Panel title="Runtime settings">
                {!mayChange && <ReadOnlyNote what="Settings changes" />}
                <RuntimeToggles settings={settings} onSaved={setLatest} readOnly={!mayChange} />
              </Panel>
              <div class="grid">
                <RouterPanel />
                <KeyPanel keysAccepted={settings.config['api_keys']} />
              </div>
              <ConfigGroups config={settings.config} />
            </>
          );
        }}
      </WithData>
    </View>
  );
}

function RouterPanel() {
  const health = useApi<Pick<HealthReport, 'router_version'>>('api/health');
  const address = new URL('..', document.baseURI);
  return (
    <Panel title="Router">
      <dl class="settings-config">
        <div>
          <dt>Version</dt>
          <dd>{health.data?.router_version ?? (health.loading ? 'reading…' : NONE)}</dd>
        </div>
        <div>
          <dt>Host</dt>
          <dd>{address.host}</dd>
        </div>
        <div>
          <dt>Address</dt>
          <dd class="settings-url">{address.href}</dd>
        </div>
      </dl>
    </Panel>
  );
}

function KeyPanel({ keysAccepted }: { keysAccepted: unknown }) {
  // Re-read when the key prompt opens or closes (a key entered meanwhile).
  useStore(keyRequest);
  const [forgotten, setForgotten] = useState(false);
  const stored = currentKey();
  const has = stored !== undefined && stored !== '';
  return (
    <Panel title="API key">
      <p>
        {typeof keysAccepted === 'number' && keysAccepted > 0
          ? `The router asks for an API key (it accepts ${keysAccepted}).`
          : 'The router asks for no API key (FLEET_API_KEYS is unset).'}{' '}
        {has ? 'This browser keeps one and sends it with every call.' : 'This browser keeps none.'}
      </p>
      {forgotten && !has && (
        <p class="settings-saved" role="status">
          Forgotten. The page asks for a key when the router next wants one.
        </p>
      )}
      {has && (
        <button
          type="button"
          class="secondary"
          onClick={() => {
            forgetKey();
            setForgotten(true);
            refreshRole();
          }}
        >
          Forget API key
        </button>
      )}
    </Panel>
  );
}
