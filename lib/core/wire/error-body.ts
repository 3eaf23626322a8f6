/**
 * The error body of each wire family (ARCHITECTURE.md §9.1): Ollama `{"error": "..."}`, OpenAI
 * `{"error": {message, type, param, code}}`, Anthropic `{"type": "error", "error": {type, message}}`.
 * Pure: used for HTTP error responses and for in-band errors after the first byte.
 */
import type { RouterError } from '../errors';

export type ErrorFamily = 'ollama' | 'openai' | 'anthropic';

function openAIType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function anthropicType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** The JSON body of an error in a family's shape. */
export function errorBody(family: ErrorFamily, error: RouterError): unknown {
  switch (family) {
    case 'ollama':
      return { error: error.message };
    case 'anthropic':
      return { type: 'error', error: { type: anthropicType(error.status), message: error.message } };
    case 'openai':
      return {
        error: { message: error.message, type: openAIType(error.status), param: error.param ?? null, code: error.code },
      };
  }
}
