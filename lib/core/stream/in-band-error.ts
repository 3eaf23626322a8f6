/**
 * A failure after the first byte (ARCHITECTURE.md §9.4; protocols §1.6, §3.3): the status line is gone, so the
 * error is written into the stream in the family's own framing, never as a silent truncation and never
 * as text appended to a half-written frame. Ollama clients read an `{"error": "..."}` NDJSON line
 * (ollama-js throws it); OpenAI clients read `data: {"error": {message, type, param, code}}` (openai-node
 * throws `APIError`). The bodies are the ones `renderError` sends before the first byte. Pure.
 */
import type { RouterError } from '../errors';
import { errorBody } from '../wire/error-body';
import { encodeNdjson } from './ndjson';
import { encodeSseData } from './sse';

export type InBandErrorFamily = 'ollama' | 'openai';

/** The encoded bytes to write after the first byte, before closing the stream. */
export function inBandError(family: InBandErrorFamily, error: RouterError): string {
  switch (family) {
    case 'ollama':
      return encodeNdjson(errorBody('ollama', error));
    case 'openai':
      return encodeSseData(errorBody('openai', error));
  }
}
