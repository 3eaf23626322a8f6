/**
 * Retry pacing for table writes (ARCHITECTURE.md §3.5: a failed write is retried, never dropped):
 * exponential backoff with jitter, so many instances retrying after one outage do not retry in step.
 */

/** Delay before retry number `attempt` (1-based): base·2^(attempt-1), capped, with ±25 % jitter. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  const jitter = exponential * 0.25 * (Math.random() * 2 - 1);
  return Math.max(0, Math.round(exponential + jitter));
}

/** A referenced timer: an awaited retry keeps the process alive until it is done. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
