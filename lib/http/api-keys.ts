/**
 * Optional API keys (contract §2, FLEET_API_KEYS): when configured, every request but the liveness
 * probe (`GET /`, `HEAD /`) must carry one of them, as `Authorization: Bearer <key>` (OpenAI SDK,
 * Anthropic SDK 1.x, node agents) or `x-api-key: <key>` (Anthropic SDK 0.x, curl). Compared in
 * constant time. Unset, the router is open, as the HTTP interface describes.
 */
import { timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '../errors';
import type { HttpRequest } from './request';

function presentedKey(request: HttpRequest): string | undefined {
  const authorization = request.header('authorization');
  if (authorization !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match?.[1] !== undefined) return match[1].trim();
  }
  return request.header('x-api-key')?.trim();
}

function matches(presented: string, keys: readonly Buffer[]): boolean {
  const candidate = Buffer.from(presented, 'utf8');
  let found = false;
  // Every key is compared, so the time taken does not say which one was close.
  for (const key of keys) {
    if (key.length === candidate.length && timingSafeEqual(key, candidate)) found = true;
  }
  return found;
}

/** A check for the handler wrapper; undefined when no keys are configured. */
export function createApiKeyCheck(keys: readonly string[] | undefined): ((request: HttpRequest) => void) | undefined {
  if (keys === undefined || keys.length === 0) return undefined;
  const encoded = keys.map((key) => Buffer.from(key, 'utf8'));
  return (request) => {
    if (request.path === '/' && (request.method === 'GET' || request.method === 'HEAD')) return;
    const presented = presentedKey(request);
    if (presented === undefined || presented === '') throw new UnauthorizedError('an API key is required');
    if (!matches(presented, encoded)) throw new UnauthorizedError('the API key is not valid');
  };
}
