/**
 * Queue depths shared between router instances (ARCHITECTURE.md §3.6). Each instance — a Lambda container,
 * or a function bundle in the emulator — owns the queues of the requests it serves; it publishes their
 * state to the table (written behind, at most about once a second) under its own id with a short TTL,
 * and the status views add up the live entries of every instance. The same records are how instances
 * divide a node's slots between them (lib/services/dispatch/shared-slots): each one's entries carry its
 * claim, and `instances` gives them by instance.
 */

import type { QueueState } from '../../core/fleet/queue-entry';
import { parseJson } from '../../core/wire/json';
import { queueStateKey } from './keys';
import type { Table } from './table';
import type { WriteBehind } from './write-behind';

/** A published state older than this is an instance that stopped (a frozen or recycled container). */
export const QUEUE_STATE_TTL_MS = 10_000;

interface Published {
  readonly at: number;
  readonly entries: readonly QueueState[];
}

/** One live instance's last publication. */
export interface PublishedInstance {
  readonly instanceId: string;
  readonly at: number;
  readonly entries: readonly QueueState[];
}

export interface QueueStateRepository {
  publish(instanceId: string, entries: readonly QueueState[], now: number): void;
  /** Every live instance's entries, concatenated; without `exceptInstanceId`'s own. */
  live(now: number, options?: { readonly exceptInstanceId?: string }): Promise<QueueState[]>;
  /** Every live instance's last publication, this instance's own included, in one read. */
  instances(now: number): Promise<PublishedInstance[]>;
}

export function createQueueStateRepository(
  table: Pick<Table, 'queryDocs'>,
  queue: Pick<WriteBehind, 'put'>,
): QueueStateRepository {
  const instances = async (now: number): Promise<PublishedInstance[]> => {
    const items = await table.queryDocs(queueStateKey('-').pk);
    const live: PublishedInstance[] = [];
    for (const item of items) {
      const parsed = item.doc === undefined ? undefined : parseJson(item.doc);
      if (parsed === undefined || !parsed.ok) continue;
      const published = parsed.value as Partial<Published>;
      if (
        typeof published.at !== 'number' ||
        now - published.at > QUEUE_STATE_TTL_MS ||
        !Array.isArray(published.entries)
      )
        continue;
      live.push({ instanceId: item.sk, at: published.at, entries: published.entries });
    }
    return live;
  };
  return {
    publish(instanceId, entries, now) {
      const { pk, sk } = queueStateKey(instanceId);
      const published: Published = { at: now, entries };
      queue.put({ pk, sk, expiresAt: Math.ceil((now + QUEUE_STATE_TTL_MS) / 1000), doc: JSON.stringify(published) });
    },
    async live(now, options = {}) {
      const entries: QueueState[] = [];
      for (const published of await instances(now)) {
        if (published.instanceId !== options.exceptInstanceId) entries.push(...published.entries);
      }
      return entries;
    },
    instances,
  };
}
