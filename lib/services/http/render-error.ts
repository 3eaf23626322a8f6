/**
 * Renders a `RouterError` as the family's error response (ARCHITECTURE.md §9.1): Ollama `{"error": "..."}`,
 * OpenAI `{"error": {message, type, param, code}}`, Anthropic `{"type": "error", "error": {type, message}}`.
 * The retry headers agree (protocols §1.8): an error a retry can fix carries its Retry-After, one it
 * cannot fix carries `x-should-retry: false` and no Retry-After. The error's own headers (the `X-Fleet-*`
 * ones of a node that failed) go out with it.
 */
import type { RouterError } from '../../core/errors';
import { errorBody } from '../../core/wire/error-body';
import type { WireFamily } from './family';

export interface RenderedError {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export function renderError(family: WireFamily, error: RouterError): RenderedError {
  const headers: Record<string, string> = { ...error.headers, 'content-type': 'application/json; charset=utf-8' };
  if (error.retryable && error.retryAfterSeconds !== undefined) {
    headers['retry-after'] = String(Math.max(0, error.retryAfterSeconds));
  }
  if (error.status >= 500 && !error.retryable) headers['x-should-retry'] = 'false';
  return { statusCode: error.status, headers, body: JSON.stringify(errorBody(family, error)) };
}
