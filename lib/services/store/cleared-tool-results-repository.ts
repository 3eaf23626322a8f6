/**
 * Layer 1's sticky cut in the table (anchor §3.8; ARCHITECTURE.md §3.6: instances share through the table):
 * the ids of the tool results cleared in a conversation, one item per conversation key
 * (`clearedToolResultsKey`). Saving goes through the write-behind queue, so clearing never waits;
 * loading is one GetItem, asked for only when a prompt is above the trigger
 * (`lib/services/context-layers/sticky-cleared-ids.ts`). The item expires with the TTL the caller gives it.
 */

import { parseJson } from '../../core/wire/json';
import { clearedToolResultsKey } from './keys';
import type { Table } from './table';
import type { WriteBehind } from './write-behind';

/** A conversation's cleared ids as the table keeps them. */
export interface StoredClearedIds {
  readonly ids: readonly string[];
  /** Epoch ms; the table's TTL attribute. */
  readonly expiresAt: number;
}

/** Where cleared ids are shared between instances. `save` must not block (the write-behind queue). */
export interface ClearedIdsStore {
  load(conversationKey: string): Promise<StoredClearedIds | undefined>;
  save(conversationKey: string, ids: readonly string[], expiresAt: number): void;
}

export function createClearedToolResultsRepository(
  table: Pick<Table, 'getDoc'>,
  queue: Pick<WriteBehind, 'put'>,
): ClearedIdsStore {
  return {
    async load(conversationKey): Promise<StoredClearedIds | undefined> {
      const { pk, sk } = clearedToolResultsKey(conversationKey);
      const item = await table.getDoc(pk, sk);
      if (item?.doc === undefined) return undefined;
      const parsed = parseJson(item.doc);
      if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null) return undefined;
      const stored = parsed.value as { ids?: unknown; expiresAt?: unknown };
      if (!Array.isArray(stored.ids) || typeof stored.expiresAt !== 'number') return undefined;
      const ids = stored.ids.filter((id): id is string => typeof id === 'string');
      return { ids, expiresAt: stored.expiresAt };
    },
    save(conversationKey, ids, expiresAt) {
      const { pk, sk } = clearedToolResultsKey(conversationKey);
      queue.put({ pk, sk, expiresAt: Math.ceil(expiresAt / 1000), doc: JSON.stringify({ ids, expiresAt }) });
    },
  };
}
