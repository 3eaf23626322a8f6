/**
 * Bytes → JSON lines, for a node's NDJSON stream (protocols §2.3–2.4, §9.5). A synchronous state machine:
 * `push` takes whatever bytes arrived and returns the lines they completed, `end` flushes the last line.
 * Lines are cut on the newline byte and each is decoded from UTF-8 once it is complete: 0x0A never occurs
 * inside a multi-byte character, so a character cut between two chunks is whole again by then, with no
 * streaming text decoder (one per request was the relay's largest allocation).
 * A line that is not JSON is reported as `{ ok: false }`, never skipped or turned into an empty value,
 * so the caller can answer it in band (ARCHITECTURE.md §9.4). The line buffer is bounded: a line longer than
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
const NO_BYTES = Buffer.alloc(0);
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
  // The preview of an over-long line must not depend on where the chunks were cut: it is decoded from
  // the line's first `3 * previewUnits + 3` bytes (no UTF-16 unit takes more than 3 bytes, and a
  // character cut at the end of them comes after the preview), which are there whenever the bound is crossed.
  const previewUnits = Math.min(RAW_PREVIEW_UNITS, Math.max(0, Math.floor((maxLineBytes - 2) / 3)));
  /** The unfinished line's bytes, copied out of the chunks they came in. */
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** True while discarding the tail of a line already reported as over-long. */
  let overflowing = false;

  /** The error entry of an over-long line, from (at least) its first `3 * previewUnits + 3` bytes. */
  function overLong(line: Buffer): DecodedLine {
    const preview = line.toString('utf8', 0, Math.min(line.length, 3 * previewUnits + 3)).slice(0, previewUnits);
    return { ok: false, raw: preview, error: `line longer than ${maxLineBytes} bytes` };
  }

  /** The pending bytes and `bytes[start, end)` as one line. */
  function takeLine(bytes: Buffer, start: number, end: number): Buffer {
    if (pending.length === 0) return bytes.subarray(start, end);
    const line = Buffer.concat([...pending, bytes.subarray(start, end)]);
    pending = [];
    pendingBytes = 0;
    return line;
  }

  function complete(line: Buffer, lines: DecodedLine[]): void {
    if (overflowing) {
      overflowing = false;
      return;
    }
    if (line.length > maxLineBytes) {
      lines.push(overLong(line));
      return;
    }
    const decoded = line.toString('utf8');
    const text = decoded.endsWith('\r') ? decoded.slice(0, -1) : decoded;
    // An empty line carries no value; Ollama never sends one and NDJSON readers skip them.
    if (text.trim() === '') return;
    const parsed = parseJson(text);
    lines.push(
      parsed.ok ? { ok: true, value: parsed.value, raw: text } : { ok: false, raw: text, error: parsed.error },
    );
  }

  function push(chunk: Uint8Array): DecodedLine[] {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const lines: DecodedLine[] = [];
    let start = 0;
    for (let newline = bytes.indexOf(NEWLINE); newline !== -1; newline = bytes.indexOf(NEWLINE, start)) {
      complete(takeLine(bytes, start, newline), lines);
      start = newline + 1;
    }
    if (start === bytes.length) return lines;
    if (overflowing) {
      pending = [];
      pendingBytes = 0;
      return lines;
    }
    // Copied: the caller may reuse the chunk's memory once push returns.
    pending.push(Buffer.from(bytes.subarray(start)));
    pendingBytes += bytes.length - start;
    if (pendingBytes > maxLineBytes) {
      // Only the preview's bytes are joined; the rest of the line is dropped as it comes.
      const head = Buffer.concat(pending, Math.min(pendingBytes, 3 * previewUnits + 3));
      pending = [];
      pendingBytes = 0;
      lines.push(overLong(head));
      overflowing = true;
    }
    return lines;
  }

  function end(): DecodedLine[] {
    const lines: DecodedLine[] = [];
    const wasOverflowing = overflowing;
    const rest = takeLine(NO_BYTES, 0, 0);
    overflowing = false;
    if (!wasOverflowing) complete(rest, lines);
    return lines;
  }

  return { push, end };
}
