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

  it('answers from memory without waiting while the process is awake, the read it starts landing behind', async () => {
    let now = 0;
    const store = new CountingStore();
    const settings = createRuntimeSettings({ store, defaults, maxAgeMs: 1000, clock: () => now, awake: () => true });
    await settings.current();
    let answer: (overrides: RuntimeOverrides) => void = () => {};
    store.load = () => new Promise<RuntimeOverrides>((resolve) => (answer = resolve));

    now = 1500;
    // The read under way has not answered: the values come from memory.
    const stale = await settings.current();
    answer({ transcription: false });
    await new Promise((resolve) => setImmediate(resolve));

    expect(stale).toEqual({ imageGeneration: false, transcription: true });
    await expect(settings.current()).resolves.toEqual({ imageGeneration: false, transcription: false });
  });

  it("is kept fresh by readAhead, the refresh ticker's work, with no request asking", async () => {
    let now = 0;
    const store = new CountingStore();
    const settings = createRuntimeSettings({ store, defaults, maxAgeMs: 1000, clock: () => now, awake: () => true });
    // Nothing read yet, nothing to keep fresh: the first read is a request's.
    settings.readAhead();
    expect(store.loads).toBe(0);
    await settings.current();

    store.stored = { imageGeneration: true };
    now = 500;
    settings.readAhead();
    await new Promise((resolve) => setImmediate(resolve));
    now = 1400;

    await expect(settings.current()).resolves.toEqual({ imageGeneration: true, transcription: true });
    expect(store.loads).toBe(2);
  });

  it('after a freeze, waits for the read at most waitMs, then answers with the last known values', async () => {
    let now = 0;
    const store = new CountingStore({ imageGeneration: true });
    const settings = createRuntimeSettings({ store, defaults, waitMs: 30, clock: () => now, awake: () => false });
    await settings.current();
    store.load = () => new Promise<RuntimeOverrides>(() => {});

    now = 60_000;
    const began = performance.now();
    const values = await settings.current();

    expect(performance.now() - began).toBeGreaterThanOrEqual(25);
    expect(values).toEqual({ imageGeneration: true, transcription: true });
  });

  it("says what a request waited for the table: the first read and a thawed process's read, nothing while awake", async () => {
    let now = 0;
    let awake = false;
    const store = new CountingStore();
    let answer: (overrides: RuntimeOverrides) => void = () => {};
    store.load = () => new Promise<RuntimeOverrides>((resolve) => (answer = resolve));
    const settings = createRuntimeSettings({ store, defaults, maxAgeMs: 1000, clock: () => now, awake: () => awake });

    // The process's first read: the request waits for it.
    const first = settings.timed();
    now = 7;
    answer({});
    await expect(first).resolves.toEqual({ settings: defaults, tableWaitMs: 7 });

    // Awake, a stale copy is answered at once while the read runs behind.
    awake = true;
    now = 2000;
    await expect(settings.timed()).resolves.toEqual({ settings: defaults, tableWaitMs: undefined });
    answer({});
    await new Promise((resolve) => setImmediate(resolve));

    // Thawed after a quiet spell: one bounded read, counted.
    awake = false;
    now = 60_000;
    const thawed = settings.timed();
    now = 60_004;
    answer({ imageGeneration: true });
    await expect(thawed).resolves.toEqual({ settings: { ...defaults, imageGeneration: true }, tableWaitMs: 4 });
  });

  it('merges an update into what is stored and answers the settings now in force', async () => {
    const store = new CountingStore({ imageGeneration: true });
    const settings = createRuntimeSettings({ store, defaults });

    const now = await settings.update({ transcription: false });

    expect(now).toEqual({ imageGeneration: true, transcription: false });
    expect(store.stored).toEqual({ imageGeneration: true, transcription: false });
    await expect(settings.current()).resolves.toEqual(now);
  });

  it('clears an override sent as null: removed from the table, the environment applies again', async () => {
    const store = new CountingStore({ imageGeneration: true, transcription: false });
    const settings = createRuntimeSettings({ store, defaults });

    const now = await settings.update({ imageGeneration: null });

    expect(now).toEqual({ imageGeneration: false, transcription: false });
    expect(store.stored).toEqual({ transcription: false });
    expect(Object.keys(store.stored)).toEqual(['transcription']);
    await expect(settings.overrides()).resolves.toEqual({ transcription: false });
  });

  it('has another instance follow its environment again on its next read after a clear', async () => {
    let now = 0;
    const store = new CountingStore({ imageGeneration: true });
    const here = createRuntimeSettings({ store, defaults, clock: () => now });
    const there = createRuntimeSettings({
      store,
      defaults: { imageGeneration: false, transcription: false },
      clock: () => now,
    });
    await expect(there.current()).resolves.toEqual({ imageGeneration: true, transcription: false });

    await here.update({ imageGeneration: null });
    now = 1001;

    await expect(there.current()).resolves.toEqual({ imageGeneration: false, transcription: false });
    await expect(there.overrides()).resolves.toEqual({});
  });

  it('leaves a setting not named in the update as it is, and a clear of one never set changes nothing', async () => {
    const store = new CountingStore({ transcription: false });
    const settings = createRuntimeSettings({ store, defaults });

    await settings.update({ imageGeneration: null });

    expect(store.stored).toEqual({ transcription: false });
  });
});
