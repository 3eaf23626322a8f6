/**
 * One decoded NDJSON line from a node → a typed chunk, or the `UpstreamError` to report in band
 * (ARCHITECTURE.md §9.4). Three ways a line fails, none of them skipped: it is not JSON (or over the length
 * bound), it is the node's own `{"error": "..."}` (protocols §2.10: Ollama reports failures after the
 * first byte this way), or it does not have the chunk's shape. Pure.
 */
import { UpstreamError } from '../../errors';
import type { DecodedLine } from '../../stream/ndjson-decoder';
import {
  type OllamaChatChunk,
  type OllamaGenerateChunk,
  parseOllamaChatChunk,
  parseOllamaGenerateChunk,
} from '../../wire/ollama';
import type { WireParseResult } from '../../wire/parse-with';

export type OllamaLineResult<T> =
  | { readonly ok: true; readonly chunk: T }
  | { readonly ok: false; readonly error: UpstreamError };

export function parseOllamaChatLine(line: DecodedLine): OllamaLineResult<OllamaChatChunk> {
  return parseLine(line, parseOllamaChatChunk);
}

export function parseOllamaGenerateLine(line: DecodedLine): OllamaLineResult<OllamaGenerateChunk> {
  return parseLine(line, parseOllamaGenerateChunk);
}

function parseLine<T>(line: DecodedLine, parse: (value: unknown) => WireParseResult<T>): OllamaLineResult<T> {
  if (!line.ok) return { ok: false, error: new UpstreamError(`the node sent a malformed line: ${line.error}`) };
  const nodeError = nodeErrorOf(line.value);
  if (nodeError !== undefined) return { ok: false, error: new UpstreamError(`the node failed: ${nodeError}`) };
  const parsed = parse(line.value);
  if (!parsed.ok) {
    return { ok: false, error: new UpstreamError(`the node sent an invalid line: ${parsed.field}: ${parsed.message}`) };
  }
  return { ok: true, chunk: parsed.value };
}

function nodeErrorOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !('error' in value)) return undefined;
  const error = value.error;
  if (error === undefined || error === null) return undefined;
  return typeof error === 'string' ? error : JSON.stringify(error);
}
