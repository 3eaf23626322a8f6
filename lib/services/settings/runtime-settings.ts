/**
 * Settings an operator can change while the router runs (spec §4.5, §4.7): image generation and
 * speech-to-text on or off. The environment (`FLEET_IMAGE_GENERATION`, `FLEET_TRANSCRIPTION`) gives
 * the default; a value set at run time is kept in the table and wins, on every instance. The values are
 * read once, then kept in memory and read again in the background (ARCHITECTURE.md §3.5): at every tick
 * of the instance's refresh ticker (`readAhead`), and when a request finds them older than `maxAgeMs`.
 * So a change reaches every running instance within a tick and a read, and a request never waits for the
 * table while the process is alive. Under the fleet snapshot's rule, only a process that was frozen (a
 * Lambda container thawed after a quiet spell: not `awake`) waits for the read, at most `waitMs` after
 * it began; a read begun before the freeze is replaced, not waited for. A failed read keeps the last
 * known values rather than failing the request. An override cleared (issue 44 item 7) is removed from the
 * stored document, so every instance follows its own environment again from its next read.
 */

import { settledWithin } from '../platform/settled-within';
import type { OverridesPatch, RuntimeOverrides, SettingsRepository } from '../store/settings-repository';

/** The settings in force. */
export interface EffectiveSettings {
  readonly imageGeneration: boolean;
  readonly transcription: boolean;
}

/** The settings in force, and how long getting them waited for the table (the trace's `tableWaitMs`). */
export interface TimedSettings {
  readonly settings: EffectiveSettings;
  /** Ms waited: the process's first read, or its one read after a thaw; undefined when they were at hand. */
  readonly tableWaitMs: number | undefined;
}

export interface RuntimeSettings {
  current(): Promise<EffectiveSettings>;
  /** `current`, with the wait a routed request passes on to its trace. */
  timed(): Promise<TimedSettings>;
  /** What an operator changed at run time (the rest follows the environment), as `current` reads it. */
  overrides(): Promise<RuntimeOverrides>;
  /**
   * Merges `patch` into the stored overrides (a `null` removes one: the environment's value applies
   * again) and returns the settings now in force.
   */
  update(patch: OverridesPatch): Promise<EffectiveSettings>;
  /**
   * Starts a read in the background (the refresh ticker's work), unless nothing was read yet (the first
   * is a request's), one is under way, or one failed within `maxAgeMs`; never throws.
   */
  readAhead(): void;
}

export interface RuntimeSettingsOptions {
  readonly store: SettingsRepository;
  /** The environment's values. */
  readonly defaults: EffectiveSettings;
  readonly maxAgeMs?: number;
  /** Whether the process's background re-reads run on time (refresh-ticker `awake`); absent = never. */
  readonly awake?: () => boolean;
  /** After a freeze, how long past the start of its read a request waits for it. Default 200 ms. */
  readonly waitMs?: number;
  readonly clock?: () => number;
  readonly log?: (line: string) => void;
}

/** The overrides with `patch` applied: its values set, its nulls removed, the rest kept. */
export function patched(overrides: RuntimeOverrides, patch: OverridesPatch): RuntimeOverrides {
  const imageGeneration = patch.imageGeneration === undefined ? overrides.imageGeneration : patch.imageGeneration;
  const transcription = patch.transcription === undefined ? overrides.transcription : patch.transcription;
  return {
    ...(imageGeneration === undefined || imageGeneration === null ? {} : { imageGeneration }),
    ...(transcription === undefined || transcription === null ? {} : { transcription }),
  };
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
  const waitMs = options.waitMs ?? 200;
  const awake = options.awake ?? (() => false);
  const log = options.log ?? ((line: string) => console.warn(line));
  let overrides: RuntimeOverrides = {};
  /** When the read the values come from began. */
  let loadedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;
  let loadingSince = Number.NEGATIVE_INFINITY;
  /** Whether the read under way began while the process was awake: a freeze since makes it stale. */
  let loadingAwake = false;
  /** Reads begun so far; only the latest one's answer is kept. */
  let reads = 0;
  /** When this instance last stored a change: a read begun before it has older values. */
  let updatedAt = Number.NEGATIVE_INFINITY;
  /** When the last read failed, since the last that succeeded: background reads pause a while after it. */
  let failedAt: number | undefined;

  const read = (): Promise<void> => {
    reads += 1;
    const generation = reads;
    const startedAt = clock();
    loadingSince = startedAt;
    loadingAwake = awake();
    loading = options.store
      .load()
      .then(
        (stored) => {
          if (generation !== reads || startedAt < updatedAt) return;
          overrides = stored;
          loadedAt = startedAt;
          failedAt = undefined;
        },
        (error: unknown) => {
          // Keep the last known values; try again on the next read.
          if (generation !== reads) return;
          failedAt = clock();
          log(`runtime settings: reading the table failed: ${error instanceof Error ? error.message : String(error)}`);
        },
      )
      .finally(() => {
        if (generation === reads) loading = undefined;
      });
    return loading;
  };

  /** The read under way, unless it began before a freeze (then a new one). */
  const refresh = (): Promise<void> => (loading !== undefined && !(loadingAwake && !awake()) ? loading : read());

  /**
   * Values fit to answer with: the first read is waited for, a stale one only after a freeze, bounded.
   * Resolves with whether it waited for the table.
   */
  const fresh = async (): Promise<boolean> => {
    if (loadedAt === Number.NEGATIVE_INFINITY) {
      await refresh();
      return true;
    }
    if (clock() - loadedAt <= maxAgeMs) return false;
    const reading = refresh();
    if (awake()) return false;
    await settledWithin(reading, loadingSince + waitMs - clock());
    return true;
  };

  return {
    async current() {
      await fresh();
      return apply(options.defaults, overrides);
    },
    async timed() {
      const before = clock();
      const waited = await fresh();
      return { settings: apply(options.defaults, overrides), tableWaitMs: waited ? clock() - before : undefined };
    },
    async overrides() {
      await fresh();
      return overrides;
    },
    async update(patch) {
      const stored = await options.store.load();
      const merged = patched(stored, patch);
      await options.store.save(merged);
      overrides = merged;
      updatedAt = clock();
      loadedAt = updatedAt;
      return apply(options.defaults, merged);
    },
    readAhead() {
      if (loadedAt === Number.NEGATIVE_INFINITY || (failedAt !== undefined && clock() - failedAt < maxAgeMs)) return;
      if (loading === undefined || (loadingAwake && !awake())) void read();
    },
  };
}
