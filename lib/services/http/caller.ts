/**
 * Who sent a request, as the key check found it (./api-keys, issue 46): the list its key is in and that
 * key's id. The handler wrapper sets it on the request before the route runs; routes and traces read it.
 */

/** The list a presented key is in: `none` when no key was sent, or one that is in no list. */
export type KeyRole = 'none' | 'client' | 'operator' | 'node';

export interface Caller {
  readonly role: KeyRole;
  /**
   * The id of a client or operator key: the name the operator gave it (`team-a:sk-…`), else the first 8 hex
   * digits of its SHA-256 — never the key. Undefined for any other caller.
   */
  readonly keyId: string | undefined;
}

/** The caller of a request nobody checked: a router with no keys, a route tested on its own. */
export const UNCHECKED: Caller = Object.freeze({ role: 'none', keyId: undefined });
