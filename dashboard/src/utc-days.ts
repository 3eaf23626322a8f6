/**
 * The UTC days a window overlaps, as epoch seconds of their starts: the time axis of a daily chart, so a
 * day without a row (the API lists only days with requests, so none that day) is a 0 on its day and a
 * single day does not stretch the axis over years.
 */
const DAY_S = 86_400;

export function utcDayStarts(startSeconds: number, endSeconds: number): number[] {
  const days: number[] = [];
  for (let day = Math.floor(startSeconds / DAY_S) * DAY_S; day < endSeconds; day += DAY_S) days.push(day);
  return days;
}

/** Per series, its count on each day of `days` (0 where it has no row). */
export function perDay<Row>(
  days: readonly number[],
  rows: readonly Row[],
  day: (row: Row) => number,
  value: (row: Row) => number,
): number[] {
  const counts = new Map<number, number>();
  for (const row of rows) counts.set(day(row), (counts.get(day(row)) ?? 0) + value(row));
  return days.map((start) => counts.get(start) ?? 0);
}
