/**
 * An exponentially weighted mean, one observation at a time: the newest moves the mean `weight` of the way
 * towards itself; the first is taken as it is. What the router's learnt figures (node rates, hold and wait
 * times, token ratios) are kept with. Pure.
 */
export function smoothed(previous: number | undefined, value: number, weight: number): number {
  return previous === undefined ? value : previous + weight * (value - previous);
}
