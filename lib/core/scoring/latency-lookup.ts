/**
 * What the scorer reads of observed latency (issue: routing item 1, "expected wait from observed
 * latency"): per node:model, a window of recent request durations and its p75. The dispatcher's
 * rolling windows (lib/services/dispatch/latency-stats) implement it; ./load-signals reads it. Types only.
 */

/** A rolling window as a reader sees it: its p75, current after every observation. */
export interface LatencyWindow {
  readonly p75: number | undefined;
  /**
   * How long a request that queued for a slot here waited per place it had in the line (the requests
   * ahead of it, itself included), smoothed over the recent waits; undefined before any waited. It follows
   * a burst as it builds, where durations finished before the burst lag behind it.
   */
  readonly waitPerPlaceMs?: number | undefined;
}

/** What the scorer reads. */
export interface LatencyLookup {
  /**
   * The live window of node:model's durations; undefined before the first observation. Once there it
   * stays the same object, so a reader may keep it and read `p75` later without looking it up again.
   */
  durationWindow(nodeId: string, model: string): LatencyWindow | undefined;
}
