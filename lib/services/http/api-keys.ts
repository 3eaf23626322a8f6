/**
 * Credentials (ARCHITECTURE.md §3.10, FLEET_API_KEYS and FLEET_NODE_KEYS). Two lists that never stand in
 * for one another: client keys open every route but the heartbeats, node keys open the heartbeats only
 * (§8.2), so a client cannot register, move or drain a node and a node agent's key cannot chat. Either is
 * sent as `Authorization: Bearer <key>` (OpenAI SDK, Anthropic SDK 1.x, node agents) or
 * `x-api-key: <key>` (Anthropic SDK 0.x, curl); the liveness probe (`GET /`, `HEAD /`) needs none.
 *
 * Which list a route takes when one is unset:
 * - neither set: every route is open, as the HTTP interface describes;
 * - client keys only: heartbeats are refused (a client key must not heartbeat), and the operator is told
 *   to set FLEET_NODE_KEYS (`credentialWarnings`);
 * - node keys only: client routes are open, heartbeats need a node key.
 *
 * Keys are compared as SHA-256 digests in constant time, against every configured key, so neither the
 * time taken nor an early length check tells a caller how long a key is or which one was close.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '../../core/errors';
import type { HttpRequest } from './request';

/**
 * The credential a route takes: clients' keys (every route by default), node agents' (heartbeats), or
 * none (`public`: the dashboard page's HTML and assets, which hold no fleet data; the page then sends the
 * key with every API call).
 */
export type RouteCredential = 'client' | 'node' | 'public';

export interface CredentialLists {
  readonly apiKeys?: readonly string[] | undefined;
  readonly nodeKeys?: readonly string[] | undefined;
}

export type CredentialCheck = (request: HttpRequest, credential: RouteCredential) => void;

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

function configured(keys: readonly string[] | undefined): Buffer[] | undefined {
  return keys === undefined || keys.length === 0 ? undefined : keys.map(digest);
}

function requireKey(request: HttpRequest, keys: readonly Buffer[]): void {
  const presented = presentedKey(request);
  if (presented === undefined || presented === '') throw new UnauthorizedError('an API key is required');
  if (!matchesKey(presented, keys)) throw new UnauthorizedError('the API key is not valid');
}

/** A check for the handler wrapper; undefined when no keys of either kind are configured (open). */
export function createCredentialCheck(lists: CredentialLists): CredentialCheck | undefined {
  const clientKeys = configured(lists.apiKeys);
  const nodeKeys = configured(lists.nodeKeys);
  if (clientKeys === undefined && nodeKeys === undefined) return undefined;
  return (request, credential) => {
    if (credential === 'public') return;
    if (request.path === '/' && (request.method === 'GET' || request.method === 'HEAD')) return;
    if (credential === 'client') {
      if (clientKeys !== undefined) requireKey(request, clientKeys);
      return;
    }
    if (nodeKeys !== undefined) {
      requireKey(request, nodeKeys);
      return;
    }
    throw new UnauthorizedError(
      'heartbeats need a node key, and this router has none configured (FLEET_NODE_KEYS); client keys are not accepted here',
    );
  };
}

/**
 * The id of the client key a request was admitted with: the first 8 hex digits of its SHA-256, stable
 * and not the key; undefined when the router has no client keys (a presented key is then no identity:
 * SDKs send placeholders) or the request presented none.
 */
export function clientKeyId(request: HttpRequest, apiKeys: readonly string[] | undefined): string | undefined {
  if (apiKeys === undefined || apiKeys.length === 0) return undefined;
  const presented = presentedKey(request);
  if (presented === undefined || presented === '') return undefined;
  return digest(presented).toString('hex').slice(0, 8);
}

/** What an operator must hear at start: client keys set without node keys shuts node agents out. */
export function credentialWarnings(lists: CredentialLists): string[] {
  if (configured(lists.apiKeys) === undefined || configured(lists.nodeKeys) !== undefined) return [];
  return [
    "FLEET_API_KEYS is set but FLEET_NODE_KEYS is not: node agents' heartbeats are refused (401). " +
      'Set FLEET_NODE_KEYS and give the agents one of those keys (Authorization: Bearer <key>).',
  ];
}
