/** Small statistics for benchmark rounds: medians and formatting. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function formatNumber(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

/** `+1.2` or `-0.3`: a difference, with its sign. */
export function formatSigned(value: number, digits = 1): string {
  return `${value >= 0 ? '+' : ''}${formatNumber(value, digits)}`;
}
