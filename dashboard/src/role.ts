/**
 * Which role the page's key has (`GET api/whoami`, issue 46): `operator` (may change the fleet), `client`
 * (may read), or `open` (the router checks no client or operator keys: anyone may change it). The views
 * show pulls, deletes, the settings switches and benchmark starts only when the role may change the
 * fleet, and read-only otherwise. Read at start and whenever the key changes.
 */
import { apiGet } from './api';
import { keyRequest } from './key-store';
import { createStore, useStore } from './store';

export type PageRole = 'operator' | 'client' | 'open';

/** The role; undefined until the router has answered. */
export const pageRole = createStore<PageRole | undefined>(undefined);

/** Asks the router again (a key entered or forgotten). */
export function refreshRole(): void {
  apiGet<{ role: PageRole }>('api/whoami').then(
    (answer) => pageRole.set(answer.role),
    // The views say what failed on their own reads; a role not read leaves the page read-only.
    () => undefined,
  );
}

/** Reads the role now, and again whenever a key prompt closes (a key was entered). */
export function startRoleWatch(): void {
  refreshRole();
  keyRequest.subscribe((request) => {
    if (request === null) refreshRole();
  });
}

/** True when the page may offer changes; false while the role is not known yet. */
export function useMayChange(): boolean {
  const role = useStore(pageRole);
  return role === 'operator' || role === 'open';
}
