/**
 * Conversation affinity (issue: routing item 4; anchor §2.7): which conversation a request belongs to,
 * and the node that served it last, so the next turn can go back to the node whose runtime still holds
 * the conversation's prompt cache. The pin is a score bonus (./signals `sessionAffinity`, shrinking with
 * that node's queue), never a rule. The tracker is bounded (2,000 entries, oldest pin out first) with a
 * 15-minute TTL, and shared across instances through an `AffinityStore` (the table, written behind) —
 * but routing never waits for the store: a lookup answers from memory and, on a miss, asks the store in
 * the background so the next request knows. Holds state; the store is the only I/O, behind an interface.
 */
import { hash } from 'node:crypto';

export interface ConversationKeyInput {
  /** The model as the client asked for it. */
  readonly model: string;
  /** The request's merged tags (./tags). */
  readonly tags: readonly string[];
  /** The system prompt's text, when there is one. */
  readonly systemPrompt?: string | undefined;
  /** The text of the first user message: with the model and system prompt it names the conversation. */
  readonly firstUserTurn?: string | undefined;
}

export const SESSION_TAG_PREFIX = 'session:';

/**
 * A `session:<id>` tag wins (the client named the conversation); else a hash of the model, the system
 * prompt and the first user turn — what every later turn of the same conversation repeats. No user
 * turn, no key: affinity does not apply. Hashing (sha256, 128 bits kept) keeps prompts out of the
 * table and the key short; the fields are JSON-encoded first so no two inputs run together.
 */
export function conversationKey(input: ConversationKeyInput): string | undefined {
  for (const tag of input.tags) {
    if (tag.startsWith(SESSION_TAG_PREFIX) && tag.length > SESSION_TAG_PREFIX.length) return tag;
  }
  if (input.firstUserTurn === undefined || input.firstUserTurn === '') return undefined;
  const material = JSON.stringify([input.model, input.systemPrompt ?? null, input.firstUserTurn]);
  return `conv:${hash('sha256', material, 'base64url').slice(0, 22)}`;
}

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
