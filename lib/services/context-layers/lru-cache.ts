/**
 * A bounded map that forgets the least recently used entry first: the per-instance memory of the context
 * layers (sticky cleared ids, summaries), so consecutive turns of a conversation do not ask the table
 * again, and a long-lived container does not grow without end. Holds state; no I/O.
 */

export interface LruCache<K, V> {
  /** The value, marked as the most recently used; undefined when absent. */
  get(key: K): V | undefined;
  /** Sets the value as the most recently used, forgetting the least recently used beyond the bound. */
  set(key: K, value: V): void;
  readonly size: number;
}

export function createLruCache<K, V>(maxEntries: number): LruCache<K, V> {
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new RangeError(`maxEntries must be ≥ 1, not ${maxEntries}`);
  /** Insertion order = use order: the first key is the least recently used. */
  const entries = new Map<K, V>();
  return {
    get(key) {
      if (!entries.has(key)) return undefined;
      const value = entries.get(key) as V;
      entries.delete(key);
      entries.set(key, value);
      return value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, value);
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(oldest);
      }
    },
    get size() {
      return entries.size;
    },
  };
}
