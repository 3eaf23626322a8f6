/**
 * Reading an LLM inference trace for the routing bench (issue 41 item 3): a CSV with the columns of the
 * Azure LLM inference trace 2023 (`TIMESTAMP`, `ContextTokens`, `GeneratedTokens`; any trace with those
 * columns will do), cut to a window and scaled in rate. The file is read line by line and reading stops at
 * the window's end, so an hour-long trace costs only the part replayed.
 *
 * Times are trace seconds: the window's requests arrive at `(t − start) / rateScale`, so a rate scale of
 * 0.5 spreads the same requests over twice the time (half the load, the same bursts slowed down).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface TraceWindow {
  /** Offset of the window from the trace's first arrival, trace seconds. */
  readonly startSeconds: number;
  /** Length of the window, trace seconds (before the rate scale). */
  readonly seconds: number;
  /** Arrival rate multiplier: 2 = twice as many requests per second. */
  readonly rateScale: number;
}

export interface TraceRequest {
  /** Arrival, trace seconds after the window's start, rate scale applied. */
  readonly at: number;
  readonly promptTokens: number;
  readonly outputTokens: number;
}

const COLUMNS = ['TIMESTAMP', 'ContextTokens', 'GeneratedTokens'] as const;
const STAMP = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)/;

/** Seconds since the epoch of a trace timestamp such as `2023-11-16 18:15:46.6805900` (UTC). */
export function parseTimestamp(text: string): number {
  const found = STAMP.exec(text.trim());
  if (found === null) throw new Error(`not a trace timestamp: "${text}"`);
  const [, year, month, day, hour, minute, second] = found.map(Number);
  if (year === undefined || month === undefined || day === undefined || second === undefined) {
    throw new Error(`not a trace timestamp: "${text}"`);
  }
  return Date.UTC(year, month - 1, day, hour ?? 0, minute ?? 0) / 1000 + second;
}

/** Where each needed column is in the header line; throws naming the missing ones. */
export function columnIndexes(header: string): readonly [number, number, number] {
  const names = header.split(',').map((name) => name.trim());
  const indexes = COLUMNS.map((column) => names.indexOf(column));
  const missing = COLUMNS.filter((_, index) => indexes[index] === -1);
  if (missing.length > 0) throw new Error(`the trace has no column ${missing.join(', ')} (header: ${header})`);
  return [indexes[0] ?? 0, indexes[1] ?? 0, indexes[2] ?? 0];
}

function positiveInteger(text: string | undefined, what: string, line: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`line ${line}: ${what} is "${text}", not a count`);
  return value;
}

/** The window's requests from the lines of a trace (header first), in arrival order. */
export async function windowOf(lines: AsyncIterable<string>, window: TraceWindow): Promise<TraceRequest[]> {
  if (!(window.rateScale > 0)) throw new Error(`the rate scale must be positive, not ${window.rateScale}`);
  let indexes: readonly [number, number, number] | undefined;
  let first: number | undefined;
  let line = 0;
  const requests: TraceRequest[] = [];
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    if (indexes === undefined) {
      indexes = columnIndexes(text);
      continue;
    }
    const cells = text.split(',');
    const stamp = parseTimestamp(cells[indexes[0]] ?? '');
    first ??= stamp;
    const offset = stamp - first - window.startSeconds;
    if (offset < 0) continue;
    if (offset >= window.seconds) break;
    requests.push({
      at: offset / window.rateScale,
      promptTokens: positiveInteger(cells[indexes[1]], 'ContextTokens', line),
      outputTokens: positiveInteger(cells[indexes[2]], 'GeneratedTokens', line),
    });
  }
  return requests.sort((a, b) => a.at - b.at);
}

/** The window's requests from the trace file at `path`. */
export async function readTrace(path: string, window: TraceWindow): Promise<TraceRequest[]> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    return await windowOf(lines, window);
  } finally {
    lines.close();
    stream.destroy();
  }
}
