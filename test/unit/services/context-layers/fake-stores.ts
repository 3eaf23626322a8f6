/** In-memory stand-ins for the context layers' table repositories, recording what they are asked. */
import type { ClearedIdsStore, StoredClearedIds } from '../../../../lib/services/store/cleared-tool-results-repository';
import type { SummaryStore } from '../../../../lib/services/store/tool-result-summary-repository';

export interface RecordingClearedIdsStore extends ClearedIdsStore {
  readonly items: Map<string, StoredClearedIds>;
  readonly loads: string[];
  readonly saves: { key: string; ids: readonly string[]; expiresAt: number }[];
}

export function clearedIdsStore(options: { load?: (key: string) => Promise<StoredClearedIds | undefined> } = {}) {
  const store: RecordingClearedIdsStore = {
    items: new Map(),
    loads: [],
    saves: [],
    async load(key) {
      store.loads.push(key);
      return options.load === undefined ? store.items.get(key) : options.load(key);
    },
    save(key, ids, expiresAt) {
      store.saves.push({ key, ids: [...ids], expiresAt });
      store.items.set(key, { ids: [...ids], expiresAt });
    },
  };
  return store;
}

export interface RecordingSummaryStore extends SummaryStore {
  readonly items: Map<string, string>;
  readonly loads: string[];
}

export function summaryStore(): RecordingSummaryStore {
  const store: RecordingSummaryStore = {
    items: new Map(),
    loads: [],
    async load(key) {
      store.loads.push(key);
      return store.items.get(key);
    },
    save(key, replacement) {
      store.items.set(key, replacement);
    },
  };
  return store;
}
