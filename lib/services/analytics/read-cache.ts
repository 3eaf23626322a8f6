/**
 * A short cache of analytics reads (issue 22 item 2): a page polling the same view every couple of
 * seconds, from one tab or many, costs one table read per distinct query per `ttlMs`. Concurrent
 * requests for the same key share one read; a failed read is not kept. Per instance, bounded. Holds
 * state; no I/O of its own.
 */

export interface ReadCache {
  /** The value read for `key` within the last `ttlMs`, else `load()`'s (shared while it runs). */
  get<T>(key: string, load: () => Promise<T>): Promise<T>;
}

export interface ReadCacheOptions {
  /** Default 2000. */
  readonly ttlMs?: number;
  /** Distinct keys kept at most; the oldest goes first. Default 128. */
  readonly maxEntries?: number;
  readonly clock?: () => number;
}

export function createReadCache(options: ReadCacheOptions = {}): ReadCache {
  const ttlMs = options.ttlMs ?? 2000;
  const maxEntries = options.maxEntries ?? 128;
  const clock = options.clock ?? Date.now;
  const entries = new Map<string, { readonly at: number; readonly value: Promise<unknown> }>();
  return {
    get<T>(key: string, load: () => Promise<T>): Promise<T> {
      const now = clock();
      const entry = entries.get(key);
      if (entry !== undefined && now - entry.at < ttlMs) return entry.value as Promise<T>;
      entries.delete(key);
      const value = load();
      entries.set(key, { at: now, value });
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      return value;
    },
  };
}
