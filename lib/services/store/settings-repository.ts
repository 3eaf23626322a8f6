/**
 * The runtime settings item (ARCHITECTURE.md §3.6: settings are shared through the table): one document
 * under `SETTINGS / ITEM` holding only what an operator changed at run time. Reads are lenient — a
 * field of the wrong type is ignored, so a bad write can never switch a feature on — and writes merge
 * into what is stored.
 */

import { parseJson } from '../../core/wire/json';
import { settingsKey } from './keys';
import type { Table } from './table';

/** What was changed at run time; an absent field follows the environment. */
export interface RuntimeOverrides {
  readonly imageGeneration?: boolean;
  readonly transcription?: boolean;
}

/** A change to the overrides: a value sets one, `null` clears it (back to the environment), absent keeps it. */
export type OverridesPatch = { readonly [K in keyof RuntimeOverrides]?: RuntimeOverrides[K] | null };

export interface SettingsRepository {
  load(): Promise<RuntimeOverrides>;
  save(overrides: RuntimeOverrides): Promise<void>;
}

const BOOLEAN_FIELDS = ['imageGeneration', 'transcription'] as const;

function readOverrides(doc: string | undefined): RuntimeOverrides {
  if (doc === undefined) return {};
  const parsed = parseJson(doc);
  if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null) return {};
  const overrides: { -readonly [K in keyof RuntimeOverrides]: RuntimeOverrides[K] } = {};
  for (const field of BOOLEAN_FIELDS) {
    const value = Reflect.get(parsed.value, field);
    if (typeof value === 'boolean') overrides[field] = value;
  }
  return overrides;
}

export function createSettingsRepository(table: Pick<Table, 'getDoc' | 'putDoc'>): SettingsRepository {
  const { pk, sk } = settingsKey();
  return {
    async load() {
      return readOverrides((await table.getDoc(pk, sk))?.doc);
    },
    async save(overrides) {
      await table.putDoc({ pk, sk, doc: JSON.stringify(overrides) });
    },
  };
}
