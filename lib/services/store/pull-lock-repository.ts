/**
 * Model-pull locks in the table (spec §4.4 `POST /api/pull` 409; ARCHITECTURE.md §3.6: what instances share
 * lives in the table): one item per model under `LOCK#PULL#<model>`, held as a lease (./lease-commands) so
 * two router instances cannot pull the same model at once. A lease is taken for a short lifetime
 * (`FLEET_PULL_LEASE_MS`) and its holder renews it while the pull runs (lib/features/pull/keep-pull-lease),
 * so the lease of an instance that died mid-pull lapses within one lifetime and a later pull takes it
 * over, however long pulls are. Its `doc` names the owner: only the holder renews or releases it.
 */
import { randomUUID } from 'node:crypto';
import { lockKey, prefixedKey } from './keys';
import type { Table } from './table';

/**
 * A pull lease's lifetime by default (`FLEET_PULL_LEASE_MS`): how long a dead holder blocks the model at
 * most. Renewed every third of it, so two renewals in a row may fail (a slow table) before it lapses.
 */
export const PULL_LEASE_MS = 60_000;

export interface PullLockHolder {
  /** Where the pull runs, for whoever reads the item. */
  readonly nodeId: string;
}

export interface PullLease {
  /** The lease's lifetime; renew well within it. */
  readonly leaseMs: number;
  /**
   * Moves the lease's end to a lifetime from now. False when the lock is no longer this lease's — taken
   * over after it lapsed, or released — and then nothing is written: a lost lease is never taken back.
   */
  renew(): Promise<boolean>;
  /** Deletes the lock if this lease still holds it; safe to call more than once. */
  release(): Promise<void>;
}

export interface PullLocks {
  /** The lease on `model`'s pull lock, or undefined while another pull's lease on it has not lapsed. */
  acquire(model: string, holder: PullLockHolder): Promise<PullLease | undefined>;
}

export interface PullLockOptions {
  /** Epoch ms. */
  readonly now?: () => number;
  readonly leaseMs?: number;
  /** The owner id written into the lock; a fresh UUID per lease by default. */
  readonly ownerId?: () => string;
}

export function createPullLockRepository(
  table: Pick<Table, 'takeLease' | 'renewLease' | 'deleteItem'>,
  options: PullLockOptions = {},
): PullLocks {
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? PULL_LEASE_MS;
  const ownerId = options.ownerId ?? randomUUID;
  return {
    async acquire(model, holder) {
      const { pk, sk } = lockKey(prefixedKey('PULL', model));
      const startedAt = now();
      const doc = JSON.stringify({ owner: ownerId(), nodeId: holder.nodeId, startedAt });
      if (!(await table.takeLease({ pk, sk, doc }, startedAt + leaseMs, startedAt))) return undefined;
      let released = false;
      return {
        leaseMs,
        async renew() {
          if (released) return false;
          return table.renewLease(pk, sk, doc, now() + leaseMs);
        },
        async release() {
          if (released) return;
          released = true;
          await table.deleteItem(pk, sk, { ifDoc: doc });
        },
      };
    },
  };
}
