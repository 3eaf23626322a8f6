/**
 * Observed latency per node:model (issue: routing item 1, "expected wait from observed latency"): a
 * rolling window of the last request durations and times to first byte, with their p75 kept up to
 * date on every observation so the scorer's read is one lookup. The dispatcher records first bytes,
 * the end of a stream records the duration. In memory, one per process: it is a routing hint, not a
 * record (traces keep the record). Not pure (it holds state) but does no I/O.
 */

import type { LatencyLookup } from '../../core/scoring/latency-lookup';
import { smoothed } from '../../core/smoothed';

export interface LatencyEntry {
  readonly nodeId: string;
  readonly model: string;
  readonly samples: number;
  readonly p75DurationMs: number | undefined;
  readonly p75FirstByteMs: number | undefined;
}

export interface LatencyStats extends LatencyLookup {
  /** p75 of whole-request durations in ms; undefined before the first observation. */
  p75DurationMs(nodeId: string, model: string): number | undefined;
  recordDuration(nodeId: string, model: string, ms: number): void;
  recordFirstByte(nodeId: string, model: string, ms: number): void;
  /** A request that queued for a slot waited `ms` with `place` requests ahead of it, itself included. */
  recordQueueWait(nodeId: string, model: string, ms: number, place: number): void;
  p75FirstByteMs(nodeId: string, model: string): number | undefined;
  entries(): LatencyEntry[];
}

export interface LatencyStatsOptions {
  /** Observations kept per node:model and kind (default 64). */
  readonly window?: number;
}

/**
 * A ring of the last `window` values and their p75, kept current on write (reads are far more frequent).
 * Beside the ring, the same values in order: a write removes the value it evicts and inserts the new one
 * by binary search, moving at most `window` numbers, where sorting the window again cost a few µs of
 * every request.
 */
class Rolling {
  private readonly values: Float64Array;
  private readonly sorted: Float64Array;
  private next = 0;
  count = 0;
  p75: number | undefined;

  constructor(window: number) {
    this.values = new Float64Array(window);
    this.sorted = new Float64Array(window);
  }

  add(value: number): void {
    const { values, sorted } = this;
    let size = this.count;
    if (size === values.length) {
      const evicted = lowerBound(sorted, size, values[this.next] as number);
      sorted.copyWithin(evicted, evicted + 1, size);
      size -= 1;
    }
    const at = lowerBound(sorted, size, value);
    sorted.copyWithin(at + 1, at, size);
    sorted[at] = value;
    values[this.next] = value;
    this.next = (this.next + 1) % values.length;
    this.count = size + 1;
    this.p75 = sorted[Math.ceil(this.count * 0.75) - 1];
  }
}

/** The first index in `sorted[0, size)` whose value is not below `value`. */
function lowerBound(sorted: Float64Array, size: number, value: number): number {
  let low = 0;
  let high = size;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Weight of the newest wait in the smoothed wait per place. */
const WAIT_SMOOTHING = 0.3;

/** The durations' window, with the smoothed wait per place in line beside them: what the scorer reads. */
class DurationWindow extends Rolling {
  waitPerPlaceMs: number | undefined;

  addWait(perPlace: number): void {
    this.waitPerPlaceMs = smoothed(this.waitPerPlaceMs, perPlace, WAIT_SMOOTHING);
  }
}

interface Stat {
  readonly duration: DurationWindow;
  readonly firstByte: Rolling;
}

export function createLatencyStats(options: LatencyStatsOptions = {}): LatencyStats {
  const window = options.window ?? 64;
  /** model → node id → stat: two gets and no key building on the scorer's read. */
  const byModel = new Map<string, Map<string, Stat>>();

  const find = (nodeId: string, model: string): Stat | undefined => byModel.get(model)?.get(nodeId);
  const ensure = (nodeId: string, model: string): Stat => {
    let byNode = byModel.get(model);
    if (byNode === undefined) {
      byNode = new Map();
      byModel.set(model, byNode);
    }
    let stat = byNode.get(nodeId);
    if (stat === undefined) {
      stat = { duration: new DurationWindow(window), firstByte: new Rolling(window) };
      byNode.set(nodeId, stat);
    }
    return stat;
  };
  const usable = (ms: number) => Number.isFinite(ms) && ms >= 0;

  return {
    recordDuration(nodeId, model, ms) {
      if (usable(ms)) ensure(nodeId, model).duration.add(ms);
    },
    recordFirstByte(nodeId, model, ms) {
      if (usable(ms)) ensure(nodeId, model).firstByte.add(ms);
    },
    recordQueueWait(nodeId, model, ms, place) {
      if (usable(ms) && place >= 1) ensure(nodeId, model).duration.addWait(ms / place);
    },
    p75DurationMs: (nodeId, model) => find(nodeId, model)?.duration.p75,
    durationWindow: (nodeId, model) => find(nodeId, model)?.duration,
    p75FirstByteMs: (nodeId, model) => find(nodeId, model)?.firstByte.p75,
    entries() {
      const entries: LatencyEntry[] = [];
      for (const [model, byNode] of byModel) {
        for (const [nodeId, stat] of byNode) {
          entries.push({
            nodeId,
            model,
            samples: stat.duration.count,
            p75DurationMs: stat.duration.p75,
            p75FirstByteMs: stat.firstByte.p75,
          });
        }
      }
      return entries;
    },
  };
}
