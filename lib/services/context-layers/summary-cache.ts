/**
 * Where Layer 2's summaries are kept (anchor §3.8: summaries are cached so a result resent on every turn
 * is summarised once): a bounded per-instance LRU in front of the table
 * (`lib/services/store/tool-result-summary-repository.ts`), keyed by `summaryCacheKey` (strategy and content hash).
 * A summary is written behind, never waited for; the table keeps it 30 days. A table that fails to
 * answer is a miss (the result is summarised again), logged.
 */
import type { SummaryStore } from '../store/tool-result-summary-repository';
import { createLruCache } from './lru-cache';

export interface SummaryCache {
  /** The replacement text cached under the key, from memory or the table. */
  get(cacheKey: string): Promise<string | undefined>;
  put(cacheKey: string, replacement: string): void;
}

export interface SummaryCacheOptions {
  readonly store: SummaryStore;
  /** Summaries kept in memory (each at most a few KB). Default 1,000. */
  readonly maxEntries?: number;
  /** How long the table keeps a summary. Default 30 days. */
  readonly ttlMs?: number;
  readonly clock?: () => number;
  readonly log?: (line: string) => void;
}

export const SUMMARY_TTL_MS = 30 * 24 * 3_600_000;

export function createSummaryCache(options: SummaryCacheOptions): SummaryCache {
  const { store } = options;
  const ttlMs = options.ttlMs ?? SUMMARY_TTL_MS;
  const clock = options.clock ?? Date.now;
  const log = options.log ?? ((line: string) => console.error(line));
  const memory = createLruCache<string, string>(options.maxEntries ?? 1000);
  return {
    async get(cacheKey) {
      const known = memory.get(cacheKey);
      if (known !== undefined) return known;
      try {
        const stored = await store.load(cacheKey);
        if (stored !== undefined) memory.set(cacheKey, stored);
        return stored;
      } catch (error) {
        log(`context: loading the summary ${cacheKey} failed: ${String(error)}`);
        return undefined;
      }
    },
    put(cacheKey, replacement) {
      memory.set(cacheKey, replacement);
      store.save(cacheKey, replacement, clock() + ttlMs);
    },
  };
}
