/**
 * Renders a `RouterError` as the family's error response (contract §4): Ollama `{"error": "..."}`,
 * OpenAI `{"error": {message, type, param, code}}`, Anthropic `{"type": "error", "error": {type, message}}`.
 * 503s carry Retry-After, and `x-should-retry: false` when a client retry cannot help (protocols §1.8).
 */
import type { RouterError } from '../errors';
import { errorBody } from '../wire/error-body';
import type { WireFamily } from './family';

export interface RenderedError {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export function renderError(family: WireFamily, error: RouterError): RenderedError {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(Math.max(0, error.retryAfterSeconds));
  if (error.status >= 500 && !error.retryable) headers['x-should-retry'] = 'false';
  return { statusCode: error.status, headers, body: JSON.stringify(errorBody(family, error)) };
}
