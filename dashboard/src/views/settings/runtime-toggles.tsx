/**
 * The runtime settings as switches (spec §4.7): each change is sent at once (`POST api/settings`) and
 * shown at once; a refused or failed change is rolled back and said why. Each says whether an operator
 * set it or it follows the environment, and the environment's value; one an operator set has a control
 * that clears the override (`null`), so the environment's value applies again on every instance. To a key
 * that may not change the fleet (issue 46) the values are shown as words, with no switch and no reset.
 */
import { useState } from 'preact/hooks';
import type { SettingsView as SettingsAnswer } from '../../../../lib/features/settings/settings-view';
import { apiPost } from '../../api';

/** What each runtime setting does, in words; one the page does not know yet shows by its API name. */
const ABOUT: Readonly<Record<string, { label: string; detail: string; env: string }>> = {
  image_generation: {
    label: 'Image generation',
    detail: 'Serve image generation requests; off, they are refused.',
    env: 'FLEET_IMAGE_GENERATION',
  },
  transcription: {
    label: 'Speech-to-text',
    detail: 'Serve transcription requests; off, they are refused.',
    env: 'FLEET_TRANSCRIPTION',
  },
};

const onOff = (value: boolean) => (value ? 'on' : 'off');

export function RuntimeToggles({
  settings,
  onSaved,
  readOnly,
}: {
  settings: SettingsAnswer;
  onSaved: (next: SettingsAnswer) => void;
  readOnly: boolean;
}) {
  /** Values shown before the router confirmed them, by setting. */
  const [pending, setPending] = useState<Readonly<Record<string, boolean>>>({});
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [saved, setSaved] = useState<string | undefined>(undefined);

  /** Sends `value` for `name` (null: back to the environment's value), showing `shown` until answered. */
  const send = async (name: string, value: boolean | null, shown: boolean) => {
    const label = ABOUT[name]?.label ?? name;
    setFailure(undefined);
    setSaved(undefined);
    setPending((before) => ({ ...before, [name]: shown }));
    try {
      const next = await apiPost<SettingsAnswer>('api/settings', { [name]: value });
      onSaved(next);
      setSaved(
        value === null
          ? `${label} follows the environment again: ${onOff(Reflect.get(next, name) === true)}.`
          : `${label} is ${onOff(value)}: saved.`,
      );
    } catch (error) {
      setFailure(`${label} was not changed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      setPending(({ [name]: _done, ...rest }) => rest);
    }
  };

  return (
    <div class="settings-toggles">
      {failure !== undefined && (
        <div class="notice notice-error" role="alert">
          <p>{failure}</p>
        </div>
      )}
      <ul class="settings-list">
        {settings.runtime.map((name) => {
          const about = ABOUT[name];
          const confirmed = Reflect.get(settings, name) === true;
          const shown = pending[name] ?? confirmed;
          const overridden = settings.overridden.includes(name);
          const fallback = (settings.defaults as Readonly<Record<string, boolean>>)[name];
          const hint = `setting-${name}-hint`;
          return (
            <li key={name} class="settings-toggle">
              {readOnly ? (
                <p class="settings-value" aria-describedby={hint}>
                  {about?.label ?? name}: <strong>{onOff(shown)}</strong>
                </p>
              ) : (
                <label class="inline switch">
                  <input
                    type="checkbox"
                    role="switch"
                    checked={shown}
                    aria-checked={shown}
                    aria-describedby={hint}
                    aria-busy={pending[name] !== undefined}
                    disabled={pending[name] !== undefined}
                    onChange={(event) => send(name, event.currentTarget.checked, event.currentTarget.checked)}
                  />
                  <span class="switch-track" aria-hidden="true" />
                  {about?.label ?? name}
                </label>
              )}
              <div id={hint} class="settings-hint">
                {about !== undefined && <span>{about.detail} </span>}
                <span class={overridden ? 'badge badge-warn' : 'badge'}>
                  {overridden ? 'Set by an operator' : 'Follows the environment'}
                </span>{' '}
                <span>
                  Environment default{about === undefined ? '' : ` (${about.env})`}:{' '}
                  {fallback === undefined ? '—' : onOff(fallback)}
                </span>
              </div>
              {overridden && !readOnly && (
                <button
                  type="button"
                  class="secondary settings-reset"
                  disabled={pending[name] !== undefined}
                  onClick={() => send(name, null, fallback ?? confirmed)}
                >
                  Reset {about?.label ?? name} to default ({fallback === undefined ? 'environment' : onOff(fallback)})
                </button>
              )}
            </li>
          );
        })}
      </ul>
      <p class="settings-hint">
        A change holds on every instance of the router within a second and after a restart, until it is changed again or
        reset: a reset drops the operator's choice, and every instance follows its environment's value again.
      </p>
      <p class="settings-saved" role="status">
        {saved ?? ''}
      </p>
    </div>
  );
}
