/**
 * Time formats Ollama puts on the wire (protocols §2.1): RFC 3339 timestamps — UTC `Z` for `created_at`,
 * the node's local offset for `modified_at` / `expires_at` (Go formats local times that way) — and
 * integer nanosecond durations.
 */

/** `2025-07-07T20:22:19.184Z`: the UTC form Ollama uses for `created_at`. */
export function utcTimestamp(ms: number = Date.now()): string {
  // Formatting is cached per millisecond: every streamed token carries a timestamp.
  if (ms !== lastStamp.ms) {
    lastStamp.ms = ms;
    lastStamp.text = new Date(ms).toISOString();
  }
  return lastStamp.text;
}

const lastStamp = { ms: Number.NaN, text: '' };

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** RFC 3339 in a fixed offset, as Go prints local times (`Z` when the offset is zero). */
export function localTimestamp(ms: number, offsetMinutes: number): string {
  const shifted = new Date(ms + offsetMinutes * 60_000);
  const date = `${shifted.getUTCFullYear()}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())}`;
  const time = `${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}:${pad(shifted.getUTCSeconds())}`;
  const fraction = pad(shifted.getUTCMilliseconds(), 3);
  return `${date}T${time}.${fraction}${offsetSuffix(offsetMinutes)}`;
}

function offsetSuffix(offsetMinutes: number): string {
  if (offsetMinutes === 0) return 'Z';
  const sign = offsetMinutes > 0 ? '+' : '-';
  const abs = Math.abs(offsetMinutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** The host's current UTC offset in minutes (east positive), the default for a simulated node. */
export function hostOffsetMinutes(): number {
  const offset = -new Date().getTimezoneOffset();
  return offset === 0 ? 0 : offset;
}

/** Integer nanoseconds elapsed since the stopwatch started. */
export type Stopwatch = () => number;

/** Starts a monotonic stopwatch. */
export function startStopwatch(): Stopwatch {
  const start = process.hrtime.bigint();
  return () => Number(process.hrtime.bigint() - start);
}

/** Milliseconds to integer nanoseconds. */
export function msToNs(ms: number): number {
  return Math.round(ms * 1e6);
}

/** A promise that resolves after `ms`, or at once when `ms` is not positive. */
export function delay(ms: number): Promise<void> {
  if (!(ms > 0)) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}
