/**
 * Model-pull locks in the table (spec §4.4 `POST /api/pull` 409; ARCHITECTURE.md §3.6: what instances share
 * lives in the table): one item per model under `LOCK#PULL#<model>`, taken with a conditional put so two
 * router instances cannot pull the same model at once. The item carries a TTL, so the lock of an
 * instance that died mid-pull expires by itself (a later pull takes it over), and its `doc` names the
 * owner: only the holder's release deletes it.
 */
import { randomUUID } from 'node:crypto';
import { lockKey, prefixedKey } from './keys';
import type { Table } from './table';

/**
 * How long a lock outlives a crashed holder by default (`FLEET_PULL_LOCK_TTL_MS`). Lambda cuts a response stream
 * at 15 minutes, well inside; the emulator has no such cut, and a large model pulls for longer.
 */
export const PULL_LOCK_TTL_MS = 2 * 60 * 60 * 1000;

export interface PullLockHolder {
  /** Where the pull runs, for whoever reads the item. */
  readonly nodeId: string;
}

export interface PullLease {
  /** Deletes the lock if this lease still holds it; safe to call more than once. */
  release(): Promise<void>;
}

export interface PullLocks {
  /** The lease on `model`'s pull lock, or undefined while another pull holds it. */
  acquire(model: string, holder: PullLockHolder): Promise<PullLease | undefined>;
}

export interface PullLockOptions {
  readonly now?: () => number;
  readonly ttlMs?: number;
  /** The owner id written into the lock; a fresh UUID per lease by default. */
  readonly ownerId?: () => string;
}

export function createPullLockRepository(
  table: Pick<Table, 'putIfAbsent' | 'deleteItem'>,
  options: PullLockOptions = {},
): PullLocks {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? PULL_LOCK_TTL_MS;
  const ownerId = options.ownerId ?? randomUUID;
  return {
    async acquire(model, holder) {
      const { pk, sk } = lockKey(prefixedKey('PULL', model));
      const startedAt = now();
      const doc = JSON.stringify({ owner: ownerId(), nodeId: holder.nodeId, startedAt });
      const taken = await table.putIfAbsent(
        { pk, sk, doc, expiresAt: Math.ceil((startedAt + ttlMs) / 1000) },
        { orExpiredBefore: Math.floor(startedAt / 1000) },
      );
      if (!taken) return undefined;
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          await table.deleteItem(pk, sk, { ifDoc: doc });
        },
      };
    },
  };
}
