/**
 * The memory behind Layer 1's sticky cut (anchor §3.8): which tool results were cleared in a
 * conversation on earlier turns, so later turns clear them again and the cleared/intact boundary only
 * moves forward. Kept per conversation key, in a bounded per-instance LRU in front of the table
 * (`lib/services/store/cleared-tool-results-repository.ts`), for 7 days after the conversation last used it.
 *
 * The table stays off the hot path (ARCHITECTURE.md §3.5): the caller asks only for a conversation whose
 * prompt is above the trigger (one that never crossed it has nothing remembered); a conversation this
 * instance knows answers from memory; an unknown one is read once — at most `loadTimeoutMs`, after which
 * the turn goes on as if nothing were remembered (its clearing is then a superset: everything older than
 * the newest results) and the late answer still fills the memory. Writes go behind, only when ids were
 * added or the stored expiry is past half its life. Across instances this is approximate (decision 6):
 * an instance that knows a conversation does not re-read what another added.
 */
import type { ClearedIdsStore } from '../store/cleared-tool-results-repository';
import { createLruCache } from './lru-cache';

export interface StickyClearedIds {
  /** The ids cleared in this conversation on earlier turns (empty when none, or the table is slow or down). */
  load(conversationKey: string): Promise<ReadonlySet<string>>;
  /** Adds the ids cleared on this turn (none is fine: the conversation was used, its expiry may need a refresh). */
  remember(conversationKey: string, newIds: readonly string[]): void;
}

export interface StickyClearedIdsOptions {
  readonly store: ClearedIdsStore;
  /** Conversations kept in memory. Default 1,000. */
  readonly maxEntries?: number;
  /** How long the table keeps a conversation's ids after its last use. Default 7 days. */
  readonly ttlMs?: number;
  /** Longest wait for the table on a turn. Default 1,000 ms. */
  readonly loadTimeoutMs?: number;
  /** Ids kept per conversation, oldest forgotten first (an item stays far below DynamoDB's 400 KB). Default 5,000. */
  readonly maxIds?: number;
  readonly clock?: () => number;
  readonly log?: (line: string) => void;
}

interface Entry {
  readonly ids: Set<string>;
  /** The expiry of what the table holds (epoch ms); 0 when it holds nothing. */
  storedUntil: number;
}

const NONE: ReadonlySet<string> = new Set();
export const CLEARED_IDS_TTL_MS = 7 * 24 * 3_600_000;

export function createStickyClearedIds(options: StickyClearedIdsOptions): StickyClearedIds {
  const { store } = options;
  const ttlMs = options.ttlMs ?? CLEARED_IDS_TTL_MS;
  const loadTimeoutMs = options.loadTimeoutMs ?? 1000;
  const maxIds = options.maxIds ?? 5000;
  const clock = options.clock ?? Date.now;
  const log = options.log ?? ((line: string) => console.error(line));
  const memory = createLruCache<string, Entry>(options.maxEntries ?? 1000);
  const loading = new Map<string, Promise<Entry | undefined>>();

  const read = (key: string): Promise<Entry | undefined> => {
    let pending = loading.get(key);
    if (pending === undefined) {
      pending = store
        .load(key)
        .then((stored) => {
          // Ids remembered here while the table answered are newer than the table's.
          const known = memory.get(key);
          const entry: Entry = known ?? { ids: new Set(), storedUntil: 0 };
          if (stored !== undefined && stored.expiresAt > clock()) {
            for (const id of stored.ids) entry.ids.add(id);
            entry.storedUntil = Math.max(entry.storedUntil, stored.expiresAt);
          }
          memory.set(key, entry);
          return entry;
        })
        .catch((error: unknown) => {
          log(`context: loading the cleared tool results of ${key} failed: ${String(error)}`);
          return undefined;
        })
        .finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    return pending;
  };

  return {
    async load(key) {
      const known = memory.get(key);
      if (known !== undefined) return known.ids;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), loadTimeoutMs);
      });
      const entry = await Promise.race([read(key), timedOut]);
      clearTimeout(timer);
      if (entry === 'timeout') {
        log(`context: the cleared tool results of ${key} took over ${loadTimeoutMs} ms to load; going on without`);
        return NONE;
      }
      return entry?.ids ?? NONE;
    },
    remember(key, newIds) {
      const entry = memory.get(key) ?? { ids: new Set<string>(), storedUntil: 0 };
      const before = entry.ids.size;
      for (const id of newIds) entry.ids.add(id);
      const added = entry.ids.size > before;
      for (const oldest of entry.ids) {
        if (entry.ids.size <= maxIds) break;
        entry.ids.delete(oldest);
      }
      memory.set(key, entry);
      const now = clock();
      if (entry.ids.size === 0 || (!added && entry.storedUntil - now > ttlMs / 2)) return;
      entry.storedUntil = now + ttlMs;
      store.save(key, [...entry.ids], entry.storedUntil);
    },
  };
}
