/**
 * Settings an operator can change while the router runs (spec §4.5, §4.7): image generation and
 * speech-to-text on or off. The environment (`FLEET_IMAGE_GENERATION`, `FLEET_TRANSCRIPTION`) gives
 * the default; a value set at run time is kept in the table and wins, on every instance. Reads are
 * cached for at most `maxAgeMs` (one second) so a request never waits for the table more than once a
 * second, and a failed read keeps the last known values rather than failing the request.
 */

import type { RuntimeOverrides, SettingsRepository } from '../store/settings-repository';

/** The settings in force. */
export interface EffectiveSettings {
  readonly imageGeneration: boolean;
  readonly transcription: boolean;
}

export interface RuntimeSettings {
  current(): Promise<EffectiveSettings>;
  /** What an operator changed at run time (the rest follows the environment), as `current` reads it. */
  overrides(): Promise<RuntimeOverrides>;
  /** Merges `patch` into the stored overrides and returns the settings now in force. */
  update(patch: RuntimeOverrides): Promise<EffectiveSettings>;
}

export interface RuntimeSettingsOptions {
  readonly store: SettingsRepository;
  /** The environment's values. */
  readonly defaults: EffectiveSettings;
  readonly maxAgeMs?: number;
  readonly clock?: () => number;
  readonly log?: (line: string) => void;
}

function apply(defaults: EffectiveSettings, overrides: RuntimeOverrides): EffectiveSettings {
  return {
    imageGeneration: overrides.imageGeneration ?? defaults.imageGeneration,
    transcription: overrides.transcription ?? defaults.transcription,
  };
}

export function createRuntimeSettings(options: RuntimeSettingsOptions): RuntimeSettings {
  const clock = options.clock ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? 1000;
  const log = options.log ?? ((line: string) => console.warn(line));
  let overrides: RuntimeOverrides = {};
  let loadedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;

  const refresh = (): Promise<void> => {
    loading ??= options.store
      .load()
      .then(
        (stored) => {
          overrides = stored;
          loadedAt = clock();
        },
        (error: unknown) => {
          // Keep the last known values; try again on the next read.
          log(`runtime settings: reading the table failed: ${error instanceof Error ? error.message : String(error)}`);
        },
      )
      .finally(() => {
        loading = undefined;
      });
    return loading;
  };

  return {
    async current() {
      if (clock() - loadedAt > maxAgeMs) await refresh();
      return apply(options.defaults, overrides);
    },
    async overrides() {
      if (clock() - loadedAt > maxAgeMs) await refresh();
      return overrides;
    },
    async update(patch) {
      const stored = await options.store.load();
      const merged: RuntimeOverrides = { ...stored, ...patch };
      await options.store.save(merged);
      overrides = merged;
      loadedAt = clock();
      return apply(options.defaults, merged);
    },
  };
}
