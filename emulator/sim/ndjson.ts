/**
 * Paced NDJSON output, as Ollama streams it (protocols §2.1): headers with the first line, one JSON object
 * and `\n` per write, each line written when it is produced (timers between lines, none when the delay
 * is zero). Applies the one-shot stream faults (drop the socket, insert a malformed line) and stops its
 * timers as soon as the client goes away. `createNdjsonWriter` is the same writing for callers with
 * their own clock (the performance model), several lines per write when they fall due together.
 */
import type { ServerResponse } from 'node:http';
import type { StreamFault } from './faults';
import { isGone, sendJson } from './http';

export interface TimedLine {
  /** Milliseconds to wait before this line is produced. */
  readonly delayMs: number;
  /** Builds the line when it is due, so timestamps and metrics are current. */
  readonly build: () => unknown;
}

/** What a malformed line looks like: a JSON object cut off mid-way. */
const MALFORMED_LINE = '{"model":"simulated","message":{"role":"assistant","content":"trunc\n';

export interface NdjsonWriter {
  /** Writes `lines` in one socket write; false when the client is gone or a fault dropped the stream. */
  write(lines: readonly unknown[]): boolean;
}

/**
 * An NDJSON writer applying a stream's one-shot faults line by line: headers with the first line, a
 * malformed line before line `malformedAfter`, the socket destroyed instead of line `dropAfter`.
 */
export function createNdjsonWriter(res: ServerResponse, fault: StreamFault): NdjsonWriter {
  let written = 0;
  const flush = (chunk: string): void => {
    if (chunk === '') return;
    if (!res.headersSent) res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.write(chunk);
  };
  return {
    write(lines) {
      if (isGone(res)) return false;
      let chunk = '';
      for (const line of lines) {
        if (fault.dropAfter !== null && written >= fault.dropAfter) {
          flush(chunk);
          res.destroy();
          return false;
        }
        if (fault.malformedAfter === written) chunk += MALFORMED_LINE;
        chunk += `${JSON.stringify(line)}\n`;
        written++;
      }
      flush(chunk);
      return true;
    },
  };
}

/**
 * Writes `lines` as NDJSON with their delays; `onEnd(true)` after the last line, `onEnd(false)` when the
 * client left or the stream was dropped. `onEnd` is called exactly once.
 */
export function playNdjson(
  res: ServerResponse,
  lines: readonly TimedLine[],
  fault: StreamFault,
  onEnd: (completed: boolean) => void,
): void {
  let index = 0;
  let waited = false;
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = (completed: boolean): void => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    onEnd(completed);
  };
  const writer = createNdjsonWriter(res, fault);
  const emit = (line: unknown): boolean => writer.write([line]);
  const advance = (): void => {
    while (index < lines.length) {
      const line = lines[index] as TimedLine;
      if (line.delayMs > 0 && !waited) {
        waited = true;
        timer = setTimeout(advance, line.delayMs);
        return;
      }
      waited = false;
      index++;
      if (!emit(line.build())) {
        finish(false);
        return;
      }
    }
    finish(true);
    res.end();
  };
  res.on('close', () => finish(false));
  advance();
}

/** Answers one JSON object after `delayMs` (the `stream:false` form), unless the client leaves first. */
export function sendJsonAfter(
  res: ServerResponse,
  delayMs: number,
  build: () => unknown,
  onEnd: (completed: boolean) => void,
): void {
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = (completed: boolean): void => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    onEnd(completed);
  };
  const respond = (): void => {
    if (isGone(res)) {
      finish(false);
      return;
    }
    finish(true);
    sendJson(res, 200, build());
  };
  res.on('close', () => finish(false));
  if (delayMs > 0) timer = setTimeout(respond, delayMs);
  else respond();
}
