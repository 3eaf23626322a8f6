/**
 * Conversation affinity (issue: routing item 4; anchor §2.7): the node that served a conversation
 * (its key: lib/core/scoring/conversation-key) last, so the next turn can go back to the node whose
 * runtime still holds the conversation's prompt cache. The pin is a score bonus (lib/core/scoring/signals
 * `sessionAffinity`, shrinking with that node's queue), never a rule. The tracker is bounded (2,000
 * entries, oldest pin out first) with a 15-minute TTL, and shared across instances through an
 * `AffinityStore` (the table, written behind: lib/services/store/affinity-repository). A new conversation
 * never waits for the store: `pinned` answers from memory and, on a miss, asks the store in the background
 * so the next request knows. A conversation that goes on (`recall`: the request carries an earlier answer)
 * but that this instance has not seen was likely pinned by another instance — the usual case in AWS, where
 * each turn may land on another container — so the store is waited for, at most `loadTimeoutMs`: answered
 * from memory, the turn would go to any node and re-pin the conversation there. One read per conversation
 * and instance, as the context layers' cleared ids (lib/services/context-layers/sticky-cleared-ids): a
 * read that found no pin is remembered too, for `missTtlMs`, so a conversation no node has served yet
 * (a model no node has, a request that keeps failing) does not read the table on every request. Holds
 * state; the store is the only I/O, behind an interface.
 */
import type { AffinityStore } from '../store/affinity-repository';

export interface AffinityTracker {
  /** The node the conversation is pinned to, from memory only; undefined when unknown or expired. */
  pinned(key: string): string | undefined;
  /**
   * The pin of a conversation that goes on: from memory, else from the store, waited for at most
   * `loadTimeoutMs` (past it, undefined; the late answer still fills the memory).
   */
  recall(key: string): Promise<string | undefined>;
  /** Pins (or re-pins) the conversation to the node that served it, for another TTL. */
  pin(key: string, nodeId: string): void;
  readonly size: number;
}

export interface AffinityTrackerOptions {
  readonly maxEntries?: number;
  readonly ttlMs?: number;
  /** Longest wait for the store in `recall`. Default 200 ms, as the fleet snapshot's (`snapshotWaitMs`). */
  readonly loadTimeoutMs?: number;
  /**
   * How long a store read that found no pin is taken as the answer (default 30 s). A pin made here ends it
   * at once; one another instance makes in that time is seen after it.
   */
  readonly missTtlMs?: number;
  readonly clock?: () => number;
  readonly store?: AffinityStore;
  readonly log?: (line: string) => void;
}

interface Entry {
  readonly nodeId: string;
  readonly expiresAt: number;
  /** The expiry the store holds for this pin, so an unchanged pin is written at most once per half TTL. */
  readonly storedUntil: number;
}

export function createAffinityTracker(options: AffinityTrackerOptions = {}): AffinityTracker {
  const maxEntries = options.maxEntries ?? 2000;
  const ttlMs = options.ttlMs ?? 900_000;
  const loadTimeoutMs = options.loadTimeoutMs ?? 200;
  const missTtlMs = options.missTtlMs ?? 30_000;
  const clock = options.clock ?? Date.now;
  const log = options.log ?? ((line: string) => console.error(line));
  const { store } = options;
  /** Insertion order = pin order: the first entry is the oldest pin (and the first to expire). */
  const entries = new Map<string, Entry>();
  const loading = new Map<string, Promise<void>>();
  /** Keys the store had no live pin for, and until when that answer stands; oldest first, bounded as `entries`. */
  const missed = new Map<string, number>();

  /** Sets `key` as the newest of `map`, the oldest dropped past `maxEntries`. */
  const setNewest = <Value>(map: Map<string, Value>, key: string, value: Value) => {
    map.delete(key);
    map.set(key, value);
    for (const oldest of map.keys()) {
      if (map.size <= maxEntries) break;
      map.delete(oldest);
    }
  };

  const remember = (key: string, entry: Entry) => {
    missed.delete(key);
    setNewest(entries, key, entry);
  };

  const noteMiss = (key: string) => setNewest(missed, key, clock() + missTtlMs);

  /** True while a read that found nothing still stands for `key`. */
  const recentlyMissed = (key: string): boolean => {
    const until = missed.get(key);
    if (until === undefined) return false;
    if (until > clock()) return true;
    missed.delete(key);
    return false;
  };

  /** Reads the store's pin into memory once per miss; the read under way when one is. */
  const learn = (key: string): Promise<void> => {
    const pending = loading.get(key);
    if (store === undefined || pending !== undefined) return pending ?? Promise.resolve();
    if (recentlyMissed(key)) return Promise.resolve();
    const read = store
      .load(key)
      .then((stored) => {
        // A pin made here while the store answered is newer than the store's.
        if (entries.has(key)) return;
        if (stored === undefined || stored.expiresAt <= clock()) noteMiss(key);
        else remember(key, { nodeId: stored.nodeId, expiresAt: stored.expiresAt, storedUntil: stored.expiresAt });
      })
      .catch((error: unknown) => log(`affinity: loading pin ${key} failed: ${String(error)}`))
      .finally(() => loading.delete(key));
    loading.set(key, read);
    return read;
  };

  /** The pin in memory, dropping an expired one. */
  const inMemory = (key: string): string | undefined => {
    const entry = entries.get(key);
    if (entry !== undefined && entry.expiresAt > clock()) return entry.nodeId;
    if (entry !== undefined) entries.delete(key);
    return undefined;
  };

  return {
    pinned(key) {
      const known = inMemory(key);
      if (known === undefined) void learn(key);
      return known;
    },
    async recall(key) {
      const known = inMemory(key);
      if (known !== undefined || store === undefined) return known;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, loadTimeoutMs);
      });
      try {
        await Promise.race([learn(key), late]);
      } finally {
        clearTimeout(timer);
      }
      return inMemory(key);
    },
    pin(key, nodeId) {
      const now = clock();
      const expiresAt = now + ttlMs;
      const previous = entries.get(key);
      const fresh = previous !== undefined && previous.nodeId === nodeId && previous.storedUntil - now > ttlMs / 2;
      const storedUntil = fresh ? previous.storedUntil : expiresAt;
      remember(key, { nodeId, expiresAt, storedUntil });
      if (!fresh) store?.save(key, nodeId, expiresAt);
    },
    get size() {
      return entries.size;
    },
  };
}
