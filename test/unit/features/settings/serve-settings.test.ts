/**
 * The dashboard's settings routes as features (lib/features/settings/serve-settings): the read answers the
 * settings now in force with the starting configuration; the update hands the runtime settings only the
 * keys the operator sent and answers what is in force after it. The runtime settings are a stand-in;
 * their store and cache are lib/services/settings' (tested there).
 */
import { describe, expect, it } from '@jest/globals';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { serveSettings, serveSettingsUpdate } from '../../../../lib/features/settings/serve-settings';
import { settingsView } from '../../../../lib/features/settings/settings-view';
import { admitCaller, toHttpRequest } from '../../../../lib/services/http/request';
import { createBufferedSink } from '../../../../lib/services/http/response-sink';
import { loadConfig } from '../../../../lib/services/platform/config';
import { type EffectiveSettings, patched } from '../../../../lib/services/settings/runtime-settings';
import type { OverridesPatch, RuntimeOverrides } from '../../../../lib/services/store/settings-repository';
import { makeHttpEvent } from '../../../helpers/events';

const config = loadConfig({});
const recorded: Trace[] = [];
const traces = { record: (trace: Trace) => recorded.push(trace) };

function settingsStandIn(initial: EffectiveSettings, stored: RuntimeOverrides = {}) {
  let overridden: RuntimeOverrides = stored;
  const patches: OverridesPatch[] = [];
  const now = (): EffectiveSettings => ({ ...initial, ...overridden });
  return {
    patches,
    async current() {
      return now();
    },
    async overrides() {
      return overridden;
    },
    async update(patch: OverridesPatch) {
      patches.push(patch);
      overridden = patched(overridden, patch);
      return now();
    },
  };
}

async function answer(reply: Promise<void>, result: () => { statusCode: number; body: string }) {
  await reply;
  const { statusCode, body } = result();
  return { statusCode, body: JSON.parse(body) as unknown };
}

describe('serveSettings', () => {
  it('answers the settings in force with the starting configuration', async () => {
    const settings = settingsStandIn({ imageGeneration: true, transcription: false });
    const { sink, result } = createBufferedSink();
    const request = toHttpRequest(makeHttpEvent({ path: '/dashboard/api/settings' }));

    const reply = await answer(serveSettings({ config, settings, traces }, request, sink), result);

    const expected = settingsView(config, { imageGeneration: true, transcription: false }, {});
    expect(reply).toEqual({ statusCode: 200, body: JSON.parse(JSON.stringify(expected)) });
  });
});

describe('settingsView', () => {
  it('shows the routing strategy the environment set, read-only, in the configuration', () => {
    const settings = { imageGeneration: false, transcription: false };

    const chosen = settingsView(loadConfig({ FLEET_ROUTING_STRATEGY: 'round-robin' }), settings, {});
    const fallback = settingsView(config, settings, {});

    expect(chosen.config['routing_strategy']).toBe('round-robin');
    expect(fallback.config['routing_strategy']).toBe('score');
    expect(chosen.runtime).not.toContain('routing_strategy');
  });
});

describe('serveSettingsUpdate', () => {
  it('changes only the keys sent and answers the settings in force after it', async () => {
    const settings = settingsStandIn({ imageGeneration: false, transcription: false });
    const { sink, result } = createBufferedSink();
    const request = toHttpRequest(
      makeHttpEvent({ method: 'POST', path: '/dashboard/api/settings', body: { transcription: true } }),
    );

    const reply = await answer(serveSettingsUpdate({ config, settings, traces }, request, sink), result);

    expect(settings.patches).toEqual([{ transcription: true }]);
    expect(reply.body).toMatchObject({
      image_generation: false,
      transcription: true,
      overridden: ['transcription'],
      defaults: { image_generation: false, transcription: false },
    });
  });

  it('hands a setting sent as null on as a clear, and answers the environment value back in force', async () => {
    const settings = settingsStandIn({ imageGeneration: false, transcription: false }, { imageGeneration: true });
    const { sink, result } = createBufferedSink();
    const request = toHttpRequest(
      makeHttpEvent({ method: 'POST', path: '/dashboard/api/settings', body: { image_generation: null } }),
    );

    const reply = await answer(serveSettingsUpdate({ config, settings, traces }, request, sink), result);

    expect(settings.patches).toEqual([{ imageGeneration: null }]);
    expect(reply.body).toMatchObject({ image_generation: false, overridden: [] });
  });

  it('traces the change with the id of the key that made it, never the key', async () => {
    const settings = settingsStandIn({ imageGeneration: false, transcription: false });
    const { sink } = createBufferedSink();
    const request = toHttpRequest(
      makeHttpEvent({ method: 'POST', path: '/dashboard/api/settings', body: { image_generation: true } }),
    );
    admitCaller(request, { role: 'operator', keyId: 'ops' });
    const before = recorded.length;

    await serveSettingsUpdate({ config, settings, traces }, request, sink);

    expect(recorded.slice(before)).toEqual([
      expect.objectContaining({ style: 'settings', status: 'completed', key: 'ops', requestId: request.requestId }),
    ]);
  });

  it('refuses a value of the wrong type with a 400 naming it, and changes nothing', async () => {
    const settings = settingsStandIn({ imageGeneration: false, transcription: false });
    const { sink } = createBufferedSink();
    const request = toHttpRequest(
      makeHttpEvent({ method: 'POST', path: '/dashboard/api/settings', body: { image_generation: 'yes' } }),
    );

    await expect(serveSettingsUpdate({ config, settings, traces }, request, sink)).rejects.toMatchObject({
      status: 400,
      param: 'image_generation',
    });
    expect(settings.patches).toEqual([]);
  });
});
