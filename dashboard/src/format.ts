/** How the page writes numbers, sizes, durations and times: one way everywhere. */

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/** A dash for a value the router did not measure (null), never a made-up zero. */
export const NONE = '—';

export function count(value: number | null | undefined): string {
  return value === null || value === undefined ? NONE : integer.format(value);
}

export function decimal(value: number | null | undefined): string {
  return value === null || value === undefined ? NONE : oneDecimal.format(value);
}

export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? NONE : `${oneDecimal.format(value)} %`;
}

/** A rate as `1,234.5 tok/s`. */
export function tokensPerSecond(value: number | null | undefined): string {
  return value === null || value === undefined ? NONE : `${oneDecimal.format(value)} tok/s`;
}

/** Milliseconds as `850 ms`, `1.2 s` or `3 min 5 s`. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return NONE;
  if (ms < 1000) return `${integer.format(ms)} ms`;
  if (ms < 60_000) return `${oneDecimal.format(ms / 1000)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`;
}

export function gigabytes(value: number | null | undefined): string {
  return value === null || value === undefined ? NONE : `${oneDecimal.format(value)} GB`;
}

/** Bytes as B, KB, MB or GB (powers of 1000, as model sizes are quoted). */
export function bytes(value: number | null | undefined): string {
  if (value === null || value === undefined) return NONE;
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let scaled = value;
  let unit = 0;
  while (scaled >= 1000 && unit < units.length - 1) {
    scaled /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? integer.format(scaled) : oneDecimal.format(scaled)} ${units[unit]}`;
}

/** A local date and time from an ISO string, epoch seconds or epoch ms (told apart by size). */
export function dateTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return NONE;
  const ms = typeof value === 'number' ? (value < 1e11 ? value * 1000 : value) : Date.parse(value);
  if (Number.isNaN(ms)) return String(value);
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** `12 s ago`, `5 min ago`, `3 h ago`, `2 d ago` from an ISO string or epoch ms/seconds. */
export function ago(value: string | number | null | undefined, now = Date.now()): string {
  if (value === null || value === undefined || value === '') return NONE;
  const ms = typeof value === 'number' ? (value < 1e11 ? value * 1000 : value) : Date.parse(value);
  if (Number.isNaN(ms)) return String(value);
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}
