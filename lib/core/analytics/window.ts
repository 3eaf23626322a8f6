/**
 * The time window of an analytics read (issue 22 item 2, spec §8 defaults): `days` or `hours` back from
 * now, or `start_ts`/`end_ts` (epoch seconds, fractions allowed, as the reference takes them) where a
 * client names the window itself. A bad value is a 400 naming the parameter. The rollups a window reads
 * are the UTC days (or hours) it overlaps: a day's figures are never split. Pure: the clock comes in.
 */
import { BadRequestError } from '../errors';

export interface TimeWindow {
  /** Epoch ms, inclusive. */
  readonly startMs: number;
  /** Epoch ms, exclusive. */
  readonly endMs: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** How far back daily rollups are kept (their TTL), so the longest `days` window. */
export const MAX_WINDOW_DAYS = 400;
/** How far back hourly rollups are kept (their TTL), so the longest `hours` window. */
export const MAX_WINDOW_HOURS = 35 * 24;

export type Query = Readonly<Record<string, string>>;

/** A whole number in [min, max] from `query[name]`, `fallback` when absent; else a 400 naming it. */
export function integerParam(query: Query, name: string, fallback: number, min: number, max: number): number {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new BadRequestError(`${name} must be a whole number, got "${raw}"`, name);
  const value = Number(raw.trim());
  if (value < min || value > max)
    throw new BadRequestError(`${name} must be between ${min} and ${max}, got ${value}`, name);
  return value;
}

function epochSecondsParam(query: Query, name: string): number | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || value > 1e11) {
    throw new BadRequestError(`${name} must be a time in epoch seconds, got "${raw}"`, name);
  }
  return value * 1000;
}

/**
 * The window a request names: `start_ts`/`end_ts` when given (one alone is bounded by now, or by `unit`
 * × the default count before `end_ts`), else `unit` × the count parameter (`days` or `hours`) back from now.
 */
export function windowParam(
  query: Query,
  now: number,
  unit: 'days' | 'hours',
  fallback: number,
): { readonly window: TimeWindow; readonly count: number } {
  const unitMs = unit === 'days' ? DAY_MS : HOUR_MS;
  const max = unit === 'days' ? MAX_WINDOW_DAYS : MAX_WINDOW_HOURS;
  const count = integerParam(query, unit, fallback, 1, max);
  const start = epochSecondsParam(query, 'start_ts');
  const end = epochSecondsParam(query, 'end_ts');
  if (start === undefined && end === undefined) return { window: { startMs: now - count * unitMs, endMs: now }, count };
  const endMs = end ?? now;
  const startMs = start ?? endMs - count * unitMs;
  if (startMs >= endMs) throw new BadRequestError('start_ts must be before end_ts', 'start_ts');
  if (endMs - startMs > max * unitMs) {
    throw new BadRequestError(
      `the window may span at most ${max} ${unit}`,
      start === undefined ? 'end_ts' : 'start_ts',
    );
  }
  return { window: { startMs, endMs }, count: Math.ceil((endMs - startMs) / unitMs) };
}

/** `2026-11-26` for each UTC day the window overlaps, oldest first. */
export function utcDaysIn(window: TimeWindow): string[] {
  const days: string[] = [];
  for (let day = Math.floor(window.startMs / DAY_MS) * DAY_MS; day < window.endMs; day += DAY_MS) {
    days.push(new Date(day).toISOString().slice(0, 10));
  }
  return days;
}

/** Epoch ms of the start of each UTC hour the window overlaps, oldest first. */
export function utcHoursIn(window: TimeWindow): number[] {
  const hours: number[] = [];
  for (let hour = Math.floor(window.startMs / HOUR_MS) * HOUR_MS; hour < window.endMs; hour += HOUR_MS)
    hours.push(hour);
  return hours;
}
