/**
 * The counters a simulated node keeps for a bench (`SimPerformanceStats`): cumulative since start or the
 * last reset, times in wall-clock ms (a bench compressing time with `timeScale` multiplies them back).
 * Busy time and slot time are integrated between the scheduler's events.
 */

export interface SimPerformanceStats {
  /** Chat and generate requests that reached the node (load-only requests excluded). */
  requests: number;
  /** Of those, the ones answered to the end. */
  finished: number;
  /** Prompt tokens of the requests that got a slot. */
  promptTokens: number;
  /** Prompt tokens served from a slot's cache. */
  cachedTokens: number;
  /** Prompt tokens evaluated (promptTokens − cachedTokens). */
  evaluatedTokens: number;
  /** Tokens generated, including those of answers cut short by the client leaving. */
  outputTokens: number;
  /** Models loaded cold (a reload for a different context counts). */
  coldLoads: number;
  /** Time those loads took, ms. */
  loadMs: number;
  /** Idle models unloaded to make room. */
  evictions: number;
  /** Requests that waited for a slot after their model was ready. */
  waited: number;
  waitMs: number;
  /** Most requests waiting for a slot at once. */
  maxWaiting: number;
  /** Time with at least one request running, ms. */
  busyMs: number;
  /** Integral of the number of running requests over time, ms. */
  slotMs: number;
  coldLoadsByModel: Record<string, number>;
}

function zeroStats(): SimPerformanceStats {
  return {
    requests: 0,
    finished: 0,
    promptTokens: 0,
    cachedTokens: 0,
    evaluatedTokens: 0,
    outputTokens: 0,
    coldLoads: 0,
    loadMs: 0,
    evictions: 0,
    waited: 0,
    waitMs: 0,
    maxWaiting: 0,
    busyMs: 0,
    slotMs: 0,
    coldLoadsByModel: {},
  };
}

export class StatsRecorder {
  /** Counted directly by the scheduler. */
  counts: SimPerformanceStats = zeroStats();
  private lastAt: number;
  private running = 0;

  constructor(now: number) {
    this.lastAt = now;
  }

  /** Integrates busy and slot time up to `now`, then records how many requests run from here on. */
  accrue(now: number, running: number): void {
    const elapsed = Math.max(0, now - this.lastAt);
    if (this.running > 0) this.counts.busyMs += elapsed;
    this.counts.slotMs += elapsed * this.running;
    this.lastAt = now;
    this.running = running;
  }

  coldLoad(model: string, ms: number): void {
    this.counts.coldLoads++;
    this.counts.loadMs += ms;
    this.counts.coldLoadsByModel[model] = (this.counts.coldLoadsByModel[model] ?? 0) + 1;
  }

  waiting(count: number): void {
    if (count > this.counts.maxWaiting) this.counts.maxWaiting = count;
  }

  snapshot(now: number): SimPerformanceStats {
    this.accrue(now, this.running);
    return { ...this.counts, coldLoadsByModel: { ...this.counts.coldLoadsByModel } };
  }

  reset(now: number): void {
    this.accrue(now, this.running);
    this.counts = zeroStats();
  }
}
