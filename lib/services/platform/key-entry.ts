/**
 * One entry of a key list (`FLEET_API_KEYS`, `FLEET_ADMIN_KEYS`, `FLEET_NODE_KEYS`; issue 46): the key,
 * with the name the operator gave it, if any. `team-a:sk-…` is the key `sk-…` named `team-a`; the name is
 * the key's id in traces and analytics, where an unnamed key's id is a short digest of it (../http/api-keys).
 *
 * Only a leading name made of letters, digits, `_`, `.` and `-` (at most 64) followed by `:` and a key
 * is a name, so a key that holds a `:` elsewhere (`abc/def:ghi`, `:x`) is taken whole, as before names
 * existed. A key whose text before its first `:` looks like a name (`user:secret`) is read as named:
 * write it with a name of its own in front (`ci:user:secret`), which keeps everything after the first
 * `:` as the key. Pure.
 */

export interface KeyEntry {
  /** The name before the key, when the entry gave one. */
  readonly name: string | undefined;
  /** What a client sends. */
  readonly key: string;
}

const NAMED = /^([A-Za-z0-9_.-]{1,64}):(.+)$/s;

export function parseKeyEntry(entry: string): KeyEntry {
  const match = NAMED.exec(entry);
  if (match?.[1] === undefined || match[2] === undefined) return { name: undefined, key: entry };
  return { name: match[1], key: match[2] };
}
