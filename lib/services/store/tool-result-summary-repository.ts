/**
 * Layer 2's summaries in the table (anchor §3.8: summaries are cached, keyed by the content's hash and the
 * strategy): one item per cache key (`toolResultSummaryKey`), holding the text that replaces the tool
 * result. Saving goes through the write-behind queue; loading is one GetItem, asked for only while a
 * prompt is being compacted (`lib/services/context-layers/summary-cache.ts`).
 */

import { parseJson } from '../../core/wire/json';
import { toolResultSummaryKey } from './keys';
import type { Table } from './table';
import type { WriteBehind } from './write-behind';

/** Where summaries are shared between instances. `save` must not block (the write-behind queue). */
export interface SummaryStore {
  load(cacheKey: string): Promise<string | undefined>;
  save(cacheKey: string, replacement: string, expiresAt: number): void;
}

export function createToolResultSummaryRepository(
  table: Pick<Table, 'getDoc'>,
  queue: Pick<WriteBehind, 'put'>,
): SummaryStore {
  return {
    async load(cacheKey) {
      const { pk, sk } = toolResultSummaryKey(cacheKey);
      const item = await table.getDoc(pk, sk);
      if (item?.doc === undefined) return undefined;
      const parsed = parseJson(item.doc);
      if (!parsed.ok || typeof parsed.value !== 'object' || parsed.value === null) return undefined;
      const replacement = Reflect.get(parsed.value, 'replacement');
      return typeof replacement === 'string' ? replacement : undefined;
    },
    save(cacheKey, replacement, expiresAt) {
      const { pk, sk } = toolResultSummaryKey(cacheKey);
      queue.put({ pk, sk, expiresAt: Math.ceil(expiresAt / 1000), doc: JSON.stringify({ replacement }) });
    },
  };
}
