/**
 * What `GET /dashboard/api/settings` shows (spec §4.7 "current configuration"): the settings an operator
 * can change at run time, with their values now, and the configuration the instance started with,
 * read-only. Secrets are never shown: API keys appear as a count. Pure.
 */
import type { FleetConfig } from '../../services/platform/config';
import type { EffectiveSettings } from '../../services/settings/runtime-settings';
import type { OverridesPatch, RuntimeOverrides } from '../../services/store/settings-repository';

export interface SettingsView {
  readonly image_generation: boolean;
  readonly transcription: boolean;
  /** The settings `POST /dashboard/api/settings` accepts. */
  readonly runtime: readonly string[];
  /** Those of `runtime` an operator set (kept in the table); the others follow the environment. */
  readonly overridden: readonly string[];
  /** The environment's value of each runtime setting: what an unset one follows. */
  readonly defaults: Readonly<Record<(typeof RUNTIME_SETTINGS)[number], boolean>>;
  readonly config: Readonly<Record<string, unknown>>;
}

export const RUNTIME_SETTINGS = ['image_generation', 'transcription'] as const;

export function settingsView(
  config: FleetConfig,
  settings: EffectiveSettings,
  overrides: RuntimeOverrides,
): SettingsView {
  return {
    image_generation: settings.imageGeneration,
    transcription: settings.transcription,
    runtime: RUNTIME_SETTINGS,
    overridden: [
      ...(overrides.imageGeneration !== undefined ? ['image_generation'] : []),
      ...(overrides.transcription !== undefined ? ['transcription'] : []),
    ],
    defaults: { image_generation: config.imageGeneration, transcription: config.transcription },
    config: {
      nodes: config.nodes.map((node) => ({ id: node.id, url: node.url })),
      poll_interval_ms: config.pollIntervalMs,
      table: config.table,
      max_retries: config.maxRetries,
      /** How routing orders the candidates (`FLEET_ROUTING_STRATEGY`): `score`, `least-busy`, `round-robin`, `random`. */
      routing_strategy: config.routingStrategy,
      cors_origins: config.corsOrigins ?? null,
      api_keys: config.apiKeys?.length ?? 0,
      admin_keys: config.adminKeys?.length ?? 0,
      node_concurrency: Object.fromEntries(config.nodeConcurrency),
      degraded_after_ms: config.degradedAfterMs,
      offline_after_ms: config.offlineAfterMs,
      model_map: Object.fromEntries(config.modelMap),
      auto_route: config.autoRoute,
      context: {
        clear_trigger_tokens: config.context.clearTriggerTokens,
        clear_keep_recent: config.context.clearKeepRecent,
        compaction: config.context.compaction,
        compaction_budget_tokens: config.context.compactionBudgetTokens,
        compaction_model: config.context.compactionModel ?? null,
        max_prompt_tokens: config.context.maxPromptTokens,
      },
    },
  };
}

/** The dashboard's snake_case update as a change to the overrides: absent keys stay, `null` clears one. */
export function toOverrides(update: {
  readonly image_generation?: boolean | null | undefined;
  readonly transcription?: boolean | null | undefined;
}): OverridesPatch {
  return {
    ...(update.image_generation !== undefined ? { imageGeneration: update.image_generation } : {}),
    ...(update.transcription !== undefined ? { transcription: update.transcription } : {}),
  };
}
