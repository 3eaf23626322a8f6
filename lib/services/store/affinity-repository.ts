/**
 * Conversation pins in the table (ARCHITECTURE.md §3.6: instances share affinity pins through the table).
 * Saving goes through the write-behind queue, so pinning never waits; loading is a single GetItem the
 * tracker runs in the background. The item expires with the pin (TTL attribute, seconds).
 */

import { parseJson } from '../../core/wire/json';
import type { AffinityStore, StoredPin } from '../dispatch/affinity';
import { affinityKey } from './keys';
import type { Table } from './table';
import type { WriteBehind } from './write-behind';

export function createAffinityRepository(table: Pick<Table, 'getDoc'>, queue: Pick<WriteBehind, 'put'>): AffinityStore {
  return {
    async load(key): Promise<StoredPin | undefined> {
      const { pk, sk } = affinityKey(key);
      const item = await table.getDoc(pk, sk);
      if (item?.doc === undefined) return undefined;
      const parsed = parseJson(item.doc);
      if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null) return undefined;
      const stored = parsed.value as { nodeId?: unknown; expiresAt?: unknown };
      if (typeof stored.nodeId !== 'string' || typeof stored.expiresAt !== 'number') return undefined;
      return { nodeId: stored.nodeId, expiresAt: stored.expiresAt };
    },
    save(key, nodeId, expiresAt) {
      const { pk, sk } = affinityKey(key);
      queue.put({ pk, sk, expiresAt: Math.ceil(expiresAt / 1000), doc: JSON.stringify({ nodeId, expiresAt }) });
    },
  };
}
