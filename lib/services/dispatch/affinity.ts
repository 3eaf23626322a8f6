/**
 * Conversation affinity (issue: routing item 4; anchor §2.7): the node that served a conversation
 * (its key: lib/core/scoring/conversation-key) last, so the next turn can go back to the node whose
 * runtime still holds the conversation's prompt cache. The pin is a score bonus (lib/core/scoring/signals
 * `sessionAffinity`, shrinking with that node's queue), never a rule. The tracker is bounded (2,000
 * entries, oldest pin out first) with a 15-minute TTL, and shared across instances through an
 * `AffinityStore` (the table, written behind: lib/services/store/affinity-repository) — but routing never
 * waits for the store: a lookup answers from memory and, on a miss, asks the store in the background so
 * the next request knows. Holds state; the store is the only I/O, behind an interface.
 */
import type { AffinityStore } from '../store/affinity-repository';

export interface AffinityTracker {
  /** The node the conversation is pinned to, from memory only; undefined when unknown or expired. */
  pinned(key: string): string | undefined;
  /** Pins (or re-pins) the conversation to the node that served it, for another TTL. */
  pin(key: string, nodeId: string): void;
  readonly size: number;
}

export interface AffinityTrackerOptions {
  readonly maxEntries?: number;
  readonly ttlMs?: number;
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
  const clock = options.clock ?? Date.now;
  const log = options.log ?? ((line: string) => console.error(line));
  const { store } = options;
  /** Insertion order = pin order: the first entry is the oldest pin (and the first to expire). */
  const entries = new Map<string, Entry>();
  const loading = new Set<string>();

  const remember = (key: string, entry: Entry) => {
    entries.delete(key);
    entries.set(key, entry);
    for (const oldest of entries.keys()) {
      if (entries.size <= maxEntries) break;
      entries.delete(oldest);
    }
  };

  const learn = (key: string) => {
    if (store === undefined || loading.has(key)) return;
    loading.add(key);
    store
      .load(key)
      .then((stored) => {
        // A pin made here while the store answered is newer than the store's.
        if (stored === undefined || entries.has(key) || stored.expiresAt <= clock()) return;
        remember(key, { nodeId: stored.nodeId, expiresAt: stored.expiresAt, storedUntil: stored.expiresAt });
      })
      .catch((error: unknown) => log(`affinity: loading pin ${key} failed: ${String(error)}`))
      .finally(() => loading.delete(key));
  };

  return {
    pinned(key) {
      const entry = entries.get(key);
      if (entry !== undefined && entry.expiresAt > clock()) return entry.nodeId;
      if (entry !== undefined) entries.delete(key);
      learn(key);
      return undefined;
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
