/**
 * Bytes → JSON lines, for a node's NDJSON stream (protocols §2.3–2.4, §9.5). A synchronous state machine:
 * `push` takes whatever bytes arrived and returns the lines they completed, `end` flushes the last line.
 * A streaming `TextDecoder` carries a multi-byte character cut between two chunks over to the next one.
 * A line that is not JSON is reported as `{ ok: false }`, never skipped or turned into an empty value,
 * so the caller can answer it in band (contract §4). The line buffer is bounded: a line longer than
 * `maxLineBytes` is reported once as an error and the rest of it is discarded up to its newline. Pure.
 */
import { parseJson } from '../wire/json';

export type DecodedLine =
  | { readonly ok: true; readonly value: unknown; readonly raw: string }
  | { readonly ok: false; readonly raw: string; readonly error: string };

export interface NdjsonDecoderOptions {
  /** The longest line accepted, in bytes of UTF-8 (newline excluded). */
  readonly maxLineBytes: number;
}

export interface NdjsonDecoder {
  push(bytes: Uint8Array): DecodedLine[];
  end(): DecodedLine[];
}

const NEWLINE = 0x0a;
/** The most of an over-long line kept in its error entry, in UTF-16 units. */
const RAW_PREVIEW_UNITS = 200;

/**
 * @example
 * const decoder = createNdjsonDecoder({ maxLineBytes: 1 << 20 });
 * decoder.push(new TextEncoder().encode('{"done":false}\n{"do')); // [{ ok: true, value: { done: false }, ... }]
 * decoder.push(new TextEncoder().encode('ne":true}\n'));          // [{ ok: true, value: { done: true }, ... }]
 */
export function createNdjsonDecoder(options: NdjsonDecoderOptions): NdjsonDecoder {
  const { maxLineBytes } = options;
  // The preview of an over-long line must not depend on where the chunks were cut: when the bound is
  // crossed at least `maxLineBytes - 2` bytes are decoded (the decoder holds at most 3), and no UTF-16
  // unit takes more than 3 bytes, so this many units are always there.
  const previewUnits = Math.min(RAW_PREVIEW_UNITS, Math.max(0, Math.floor((maxLineBytes - 2) / 3)));
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  /** Bytes of the unfinished line so far, counted on the raw bytes (exact, unlike decoded text). */
  let pendingBytes = 0;
  /** True while discarding the tail of a line already reported as over-long. */
  let overflowing = false;

  function overLong(text: string): DecodedLine {
    return { ok: false, raw: text.slice(0, previewUnits), error: `line longer than ${maxLineBytes} bytes` };
  }

  function complete(text: string, lineBytes: number, lines: DecodedLine[]): void {
    if (overflowing) {
      overflowing = false;
      return;
    }
    if (lineBytes > maxLineBytes) {
      lines.push(overLong(text));
      return;
    }
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    // An empty line carries no value; Ollama never sends one and NDJSON readers skip them.
    if (line.trim() === '') return;
    const parsed = parseJson(line);
    lines.push(
      parsed.ok ? { ok: true, value: parsed.value, raw: line } : { ok: false, raw: line, error: parsed.error },
    );
  }

  function push(bytes: Uint8Array): DecodedLine[] {
    const lines: DecodedLine[] = [];
    // 0x0A never occurs inside a multi-byte character, so the decoded text has one '\n' per newline byte.
    const parts = decoder.decode(bytes, { stream: true }).split('\n');
    let start = 0;
    for (let index = 0; index < parts.length - 1; index += 1) {
      const newline = bytes.indexOf(NEWLINE, start);
      complete(pending + (parts[index] ?? ''), pendingBytes + newline - start, lines);
      pending = '';
      pendingBytes = 0;
      start = newline + 1;
    }
    pendingBytes += bytes.length - start;
    if (overflowing) return lines;
    pending += parts[parts.length - 1] ?? '';
    if (pendingBytes > maxLineBytes) {
      lines.push(overLong(pending));
      pending = '';
      overflowing = true;
    }
    return lines;
  }

  function end(): DecodedLine[] {
    const lines: DecodedLine[] = [];
    const rest = decoder.decode();
    complete(pending + rest, pendingBytes, lines);
    pending = '';
    pendingBytes = 0;
    overflowing = false;
    return lines;
  }

  return { push, end };
}
