/**
 * What an entry of `FLEET_CORS_ORIGINS` must look like (spec §4.8): an origin (`scheme://host[:port]`,
 * `*` allowed inside each part), a bare `*`, or `null`. The config refuses at start an entry that could
 * never match an Origin header (./config); lib/services/http/cors applies the list. Pure.
 */

/** `scheme://host[:port]`, each part possibly with `*` in it; what an entry must look like. */
const ORIGIN_ENTRY = /^[a-z*][a-z0-9+.*-]*:\/\/[a-z0-9.*\-[\]:]+$/i;

/** Why an entry of FLEET_CORS_ORIGINS can never match an Origin header, or undefined when it can. */
export function corsOriginProblem(entry: string): string | undefined {
  if (entry === '*' || entry === 'null') return undefined;
  if (!ORIGIN_ENTRY.test(entry)) return `"${entry}" is not an origin (scheme://host[:port], * allowed inside)`;
  return undefined;
}
