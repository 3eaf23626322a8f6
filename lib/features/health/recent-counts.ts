/**
 * Counters that only grow (a process's write failures, a queue's rejections) read as what they grew by
 * over the last `spanMs` or more (issue 22 item 3): against the newest sample at least that old, or the
 * first one while the process is younger. So a health check speaks of a recent failure, never of one
 * the process saw hours ago. A counter that fell (its instance went away) counts as 0. Holds samples; the
 * clock comes in with each call.
 */

export interface CountsSince {
  /** Growth of each counter of `current` since the base sample (0 when it did not grow). */
  readonly deltas: ReadonlyMap<string, number>;
  /** How long ago the base sample was taken. */
  readonly spanMs: number;
}

export interface RecentCounts {
  /** The growth since the base sample; `current` is kept as the newest sample. */
  since(now: number, current: ReadonlyMap<string, number>): CountsSince;
}

interface Sample {
  readonly at: number;
  readonly counts: ReadonlyMap<string, number>;
}

export function createRecentCounts(
  spanMs: number,
  startedAt: number,
  initial: ReadonlyMap<string, number>,
): RecentCounts {
  let samples: Sample[] = [{ at: startedAt, counts: initial }];
  return {
    since(now, current) {
      const old = samples.filter((sample) => sample.at <= now - spanMs);
      const base = old[old.length - 1] ?? samples[0] ?? { at: now, counts: new Map() };
      // Kept: the base and every later sample (one becomes the next base); bounded by span ÷ call interval.
      samples = [...samples.filter((sample) => sample.at >= base.at), { at: now, counts: current }];
      const deltas = new Map<string, number>();
      for (const [key, value] of current) deltas.set(key, Math.max(0, value - (base.counts.get(key) ?? 0)));
      return { deltas, spanMs: now - base.at };
    },
  };
}
