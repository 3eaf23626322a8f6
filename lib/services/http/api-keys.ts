/**
 * Credentials (ARCHITECTURE.md §3.10): three lists of keys that never stand in for one another.
 * - client keys (`FLEET_API_KEYS`) route requests and read: every route but the changes and the heartbeats;
 * - operator keys (`FLEET_ADMIN_KEYS`, issue 46) do all a client key does, and change the fleet — the
 *   routes marked `operatorRoute`: pulls, deletes, copies, settings, benchmark start and cancel;
 * - node keys (`FLEET_NODE_KEYS`) open the heartbeats only (§8.2), so a client cannot register, move or
 *   drain a node and a node agent's key cannot chat.
 * Any is sent as `Authorization: Bearer <key>` (OpenAI SDK, Anthropic SDK 1.x, node agents) or
 * `x-api-key: <key>` (Anthropic SDK 0.x, curl); the liveness probe (`GET /`, `HEAD /`) needs none.
 *
 * Which keys a route takes when lists are unset:
 * - none set: every route is open, as the HTTP interface describes;
 * - client routes need a client or operator key once either list is set; with operator keys alone they are
 *   open, and only the changes are closed;
 * - a change with client keys but no operator keys is refused to every key (403 naming FLEET_ADMIN_KEYS;
 *   `credentialWarnings` tells the operator at start): a key handed to an application must not delete
 *   models. A valid client key on a change gets 403, not 401: the key is good, its list is not;
 * - heartbeats are refused while client keys are set without node keys (`credentialWarnings` again);
 *   with node keys they need one.
 *
 * Keys are compared as SHA-256 digests in constant time, against every configured key, so neither the
 * time taken nor an early length check tells a caller how long a key is, or which one was close.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { ForbiddenError, UnauthorizedError } from '../../core/errors';
import { parseKeyEntry } from '../platform/key-entry';
import { type Caller, type KeyRole, UNCHECKED } from './caller';
import type { HttpRequest } from './request';

/**
 * The credential a route takes: clients' keys (every route by default), operators' (the changes to the
 * fleet), node agents' (heartbeats), or none (`public`: the dashboard page's HTML and assets, which hold
 * no fleet data; the page then sends the key with every API call).
 */
export type RouteCredential = 'client' | 'operator' | 'node' | 'public';

export interface CredentialLists {
  /** Entries as written, `key` or `name:key` (../platform/key-entry). */
  readonly apiKeys?: readonly string[] | undefined;
  readonly adminKeys?: readonly string[] | undefined;
  readonly nodeKeys?: readonly string[] | undefined;
}

/** Checks a request against its route's credential: throws 401 or 403, else answers who sent it. */
export type CredentialCheck = (request: HttpRequest, credential: RouteCredential) => Caller;

function presentedKey(request: HttpRequest): string | undefined {
  const authorization = request.header('authorization');
  if (authorization !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match?.[1] !== undefined) return match[1].trim();
  }
  return request.header('x-api-key')?.trim();
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/**
 * True when `presented` is one of `keys` (given as digests). Digests all have one length, so
 * `timingSafeEqual` runs for every key whatever was sent, and every key is compared.
 */
export function matchesKey(presented: string, keys: readonly Buffer[]): boolean {
  const candidate = digest(presented);
  let found = false;
  for (const key of keys) found = timingSafeEqual(key, candidate) || found;
  return found;
}

interface KnownKey {
  readonly digest: Buffer;
  readonly role: Exclude<KeyRole, 'none'>;
  readonly id: string;
}

/** A key's id: its name, else the first 8 hex digits of its digest (stable, and not the key). */
function keyId(name: string | undefined, keyDigest: Buffer): string {
  return name ?? keyDigest.toString('hex').slice(0, 8);
}

function known(entries: readonly string[] | undefined, role: KnownKey['role']): KnownKey[] {
  return (entries ?? []).map((entry) => {
    const { name, key } = parseKeyEntry(entry);
    const keyDigest = digest(key);
    return { digest: keyDigest, role, id: keyId(name, keyDigest) };
  });
}

/** Every configured key with its role, and which lists are set. */
export interface Keyring {
  readonly keys: readonly KnownKey[];
  readonly clientKeys: boolean;
  readonly adminKeys: boolean;
  readonly nodeKeys: boolean;
}

export function createKeyring(lists: CredentialLists): Keyring {
  const keys = [
    ...known(lists.apiKeys, 'client'),
    ...known(lists.adminKeys, 'operator'),
    ...known(lists.nodeKeys, 'node'),
  ];
  const has = (role: KnownKey['role']) => keys.some((key) => key.role === role);
  return { keys, clientKeys: has('client'), adminKeys: has('operator'), nodeKeys: has('node') };
}

/**
 * The one place that decides a request's role: the list its key is in, compared against every key of
 * every list (a key is in one list only: ../platform/config refuses it otherwise).
 */
export function identifyCaller(ring: Keyring, request: HttpRequest): Caller {
  const presented = presentedKey(request);
  if (presented === undefined || presented === '') return UNCHECKED;
  const candidate = digest(presented);
  let found: KnownKey | undefined;
  for (const key of ring.keys) if (timingSafeEqual(key.digest, candidate)) found ??= key;
  if (found === undefined) return UNCHECKED;
  return { role: found.role, keyId: found.role === 'node' ? undefined : found.id };
}

function refuseUnknown(request: HttpRequest): never {
  const presented = presentedKey(request);
  if (presented === undefined || presented === '') throw new UnauthorizedError('an API key is required');
  throw new UnauthorizedError('the API key is not valid');
}

/** The 403 for a valid client key on a change, saying which key is needed and where it is set. */
function operatorKeyNeeded(ring: Keyring): ForbiddenError {
  return new ForbiddenError(
    ring.adminKeys
      ? 'changing the fleet (pulls, deletes, copies, settings, benchmarks) needs an operator key (FLEET_ADMIN_KEYS); this key may route requests and read'
      : 'changing the fleet (pulls, deletes, copies, settings, benchmarks) needs an operator key, and this router has none configured (FLEET_ADMIN_KEYS); client keys may route requests and read',
  );
}

/** Clients' routes: a client or operator key once either list is set, else open. */
function checkClient(ring: Keyring, request: HttpRequest, caller: Caller): Caller {
  if (!ring.clientKeys) return caller;
  if (caller.role === 'client' || caller.role === 'operator') return caller;
  return refuseUnknown(request);
}

/** Changes: an operator key once client or operator keys are set, else open. */
function checkOperator(ring: Keyring, request: HttpRequest, caller: Caller): Caller {
  if (caller.role === 'operator' || (!ring.clientKeys && !ring.adminKeys)) return caller;
  if (caller.role === 'client') throw operatorKeyNeeded(ring);
  return refuseUnknown(request);
}

/** Heartbeats: a node key when node keys are set; refused while client keys are set without them. */
function checkNode(ring: Keyring, request: HttpRequest, caller: Caller): Caller {
  if (ring.nodeKeys) return caller.role === 'node' ? caller : refuseUnknown(request);
  if (!ring.clientKeys) return caller;
  throw new UnauthorizedError(
    'heartbeats need a node key, and this router has none configured (FLEET_NODE_KEYS); client keys are not accepted here',
  );
}

/** A check for the handler wrapper; undefined when no keys of any kind are configured (open). */
export function createCredentialCheck(lists: CredentialLists): CredentialCheck | undefined {
  const ring = createKeyring(lists);
  if (ring.keys.length === 0) return undefined;
  return (request, credential) => {
    if (credential === 'public') return UNCHECKED;
    if (request.path === '/' && (request.method === 'GET' || request.method === 'HEAD')) return UNCHECKED;
    const caller = identifyCaller(ring, request);
    switch (credential) {
      case 'client':
        return checkClient(ring, request, caller);
      case 'operator':
        return checkOperator(ring, request, caller);
      case 'node':
        return checkNode(ring, request, caller);
    }
  };
}

/**
 * What the dashboard is told about its key (`GET /dashboard/api/whoami`): `open` when the router checks
 * neither client nor operator keys (anyone may change the fleet), `operator` for an operator key, and
 * `client` for anyone else who got this far — a client key, or no key where client routes are open.
 */
export type PageRole = 'open' | 'operator' | 'client';

export function pageRole(lists: CredentialLists, caller: Caller): PageRole {
  const ring = createKeyring({ apiKeys: lists.apiKeys, adminKeys: lists.adminKeys });
  if (!ring.clientKeys && !ring.adminKeys) return 'open';
  return caller.role === 'operator' ? 'operator' : 'client';
}

/** What an operator must hear at start, and which routes it concerns. */
export interface CredentialWarning {
  readonly concerns: 'heartbeats' | 'changes';
  readonly message: string;
}

/** A setup that shuts node agents out, or refuses every change. */
export function credentialWarnings(lists: CredentialLists): CredentialWarning[] {
  const ring = createKeyring(lists);
  const warnings: CredentialWarning[] = [];
  if (ring.clientKeys && !ring.nodeKeys) {
    warnings.push({
      concerns: 'heartbeats',
      message:
        "FLEET_API_KEYS is set but FLEET_NODE_KEYS is not: node agents' heartbeats are refused (401). " +
        'Set FLEET_NODE_KEYS and give the agents one of those keys (Authorization: Bearer <key>).',
    });
  }
  if (ring.clientKeys && !ring.adminKeys) {
    warnings.push({
      concerns: 'changes',
      message:
        'FLEET_API_KEYS is set but FLEET_ADMIN_KEYS is not: no key may change the fleet (pulls, deletes, copies, ' +
        "settings and benchmarks are refused, 403). Set FLEET_ADMIN_KEYS to the operators' keys.",
    });
  }
  return warnings;
}

/**
 * The warnings of `warnings` not yet given in this process, now counted as given: the emulator runs every
 * function in one process (and warns at start), so each warning is given once, not once per function.
 * Kept on the process's global object, which the emulator's separately bundled entry and handlers share.
 */
export function unsaidWarnings(warnings: readonly CredentialWarning[]): CredentialWarning[] {
  const slot = Symbol.for('fleet-router.credential-warnings-given');
  const known: unknown = Reflect.get(globalThis, slot);
  const given: Set<string> = known instanceof Set ? known : new Set<string>();
  Reflect.set(globalThis, slot, given);
  return warnings.filter((warning) => {
    if (given.has(warning.message)) return false;
    given.add(warning.message);
    return true;
  });
}
