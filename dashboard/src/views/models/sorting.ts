/**
 * Sorting a table's rows by one of its columns: numbers largest first by default, text A to Z, a value
 * the API did not give (null) always last whichever the direction.
 */
export type SortDirection = 'ascending' | 'descending';

export interface SortKey<Row> {
  readonly id: string;
  readonly value: (row: Row) => number | string | null;
}

/** `sort` as kept in the URL: `<column>` (descending) or `<column>-asc`. */
export function parseSort(text: string): { column: string; direction: SortDirection } {
  return text.endsWith('-asc')
    ? { column: text.slice(0, -4), direction: 'ascending' }
    : { column: text, direction: 'descending' };
}

export function sortText(column: string, direction: SortDirection): string {
  return direction === 'ascending' ? `${column}-asc` : column;
}

export function sortRows<Row>(rows: readonly Row[], key: SortKey<Row>, direction: SortDirection): Row[] {
  const sign = direction === 'ascending' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const left = key.value(a);
    const right = key.value(b);
    if (left === null || right === null) return left === right ? 0 : left === null ? 1 : -1;
    if (typeof left === 'string' || typeof right === 'string') return sign * String(left).localeCompare(String(right));
    return sign * (left - right);
  });
}
