import { describe, expect, it } from '@jest/globals';
import { createRuntimeSettings } from '../../../../lib/services/settings/runtime-settings';
import type { RuntimeOverrides, SettingsRepository } from '../../../../lib/services/store/settings-repository';

/** A store whose loads are counted and can be made to fail. */
class CountingStore implements SettingsRepository {
  loads = 0;
  failing = false;
  constructor(public stored: RuntimeOverrides = {}) {}
  async load(): Promise<RuntimeOverrides> {
    this.loads++;
    if (this.failing) throw new Error('table unreachable');
    return this.stored;
  }
  async save(overrides: RuntimeOverrides): Promise<void> {
    this.stored = overrides;
  }
}

const defaults = { imageGeneration: false, transcription: true };

describe('createRuntimeSettings', () => {
  it('follows the environment where nothing was changed at run time', async () => {
    const settings = createRuntimeSettings({ store: new CountingStore(), defaults });

    await expect(settings.current()).resolves.toEqual({ imageGeneration: false, transcription: true });
  });

  it('lets a stored override win over the environment', async () => {
    const settings = createRuntimeSettings({ store: new CountingStore({ imageGeneration: true }), defaults });

    await expect(settings.current()).resolves.toEqual({ imageGeneration: true, transcription: true });
  });

  it('tells which settings are overridden, from the same cached read as the values', async () => {
    const store = new CountingStore({ imageGeneration: true });
    const settings = createRuntimeSettings({ store, defaults, clock: () => 0 });

    await settings.current();

    await expect(settings.overrides()).resolves.toEqual({ imageGeneration: true });
    expect(store.loads).toBe(1);
  });

  it('reads the table at most once per max age', async () => {
    let now = 0;
    const store = new CountingStore();
    const settings = createRuntimeSettings({ store, defaults, maxAgeMs: 1000, clock: () => now });

    await settings.current();
    now = 999;
    await settings.current();
    now = 1001;
    await settings.current();

    expect(store.loads).toBe(2);
  });

  it('sees a change another instance stored once its copy is older than the max age', async () => {
    let now = 0;
    const store = new CountingStore();
    const settings = createRuntimeSettings({ store, defaults, maxAgeMs: 1000, clock: () => now });
    await settings.current();

    store.stored = { transcription: false };
    now = 1500;

    await expect(settings.current()).resolves.toEqual({ imageGeneration: false, transcription: false });
  });

  it('keeps the last known values when the table cannot be read', async () => {
    let now = 0;
    const store = new CountingStore({ imageGeneration: true });
    const lines: string[] = [];
    const settings = createRuntimeSettings({ store, defaults, clock: () => now, log: (line) => lines.push(line) });
    await settings.current();

    store.failing = true;
    now = 5000;

    await expect(settings.current()).resolves.toEqual({ imageGeneration: true, transcription: true });
    expect(lines).toEqual([expect.stringContaining('table unreachable')]);
  });

  it('merges an update into what is stored and answers the settings now in force', async () => {
    const store = new CountingStore({ imageGeneration: true });
    const settings = createRuntimeSettings({ store, defaults });

    const now = await settings.update({ transcription: false });

    expect(now).toEqual({ imageGeneration: true, transcription: false });
    expect(store.stored).toEqual({ imageGeneration: true, transcription: false });
    await expect(settings.current()).resolves.toEqual(now);
  });
});
