/**
 * Conversation pins in the table (ARCHITECTURE.md §3.6: instances share affinity pins through the table).
 * Saving goes through the write-behind queue, so pinning never waits; loading is a single GetItem the
 * tracker runs in the background. The item expires with the pin (TTL attribute, seconds).
 */

import { parseJson } from '../../core/wire/json';
import { affinityKey } from './keys';
import type { Table } from './table';
import type { WriteBehind } from './write-behind';

/** A pin as the table keeps it. */
export interface StoredPin {
  readonly nodeId: string;
  /** Epoch ms; the table's TTL attribute. */
  readonly expiresAt: number;
}

/**
 * Where pins are shared between instances. `save` must not block (the table's write-behind queue);
 * `load` may be slow or fail: the tracker never waits for it on the routing path.
 */
export interface AffinityStore {
  load(key: string): Promise<StoredPin | undefined>;
  save(key: string, nodeId: string, expiresAt: number): void;
}

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
