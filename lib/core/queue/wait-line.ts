/**
 * The order in which requests waiting for one node:model's slots are served (issue 43): by priority,
 * then in turn across applications, weighted, with aging so a low request is never starved. Pure: the
 * clock comes in with each call; the queue that holds the slots (lib/services/dispatch/node-model-queue)
 * owns the line.
 *
 * The rule, stated for the docs (docs/configuration.md "Priorities and fair sharing"):
 * - **Priority.** The next request served is one of the highest effective priority waiting. A request's
 *   effective priority is its own raised one class (low → normal → high) for every `agingMs` it has
 *   waited: a `low` request waiting `2 × agingMs` competes as `high`, so nothing waits forever behind a
 *   stream of higher ones.
 * - **Fair share.** Among the requests of that priority, applications take turns: each has a pass that
 *   grows by `1 / weight` when one of its requests is served, and the application with the lowest pass
 *   goes next (stride scheduling), so an application of weight 2 is served twice as often as one of
 *   weight 1 while both wait. An application that starts waiting joins at the lowest pass of those
 *   already waiting: time spent idle is not credit to spend later.
 * - **Within an application**, first come, first served (the oldest of its highest effective priority).
 */

export const PRIORITIES = ['high', 'normal', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

const RANK: Readonly<Record<Priority, number>> = { low: 0, normal: 1, high: 2 };
const HIGHEST = RANK.high;

/** Who sent a waiting request, and how urgent it is. */
export interface WaitClaim {
  readonly priority: Priority;
  /** The application's id (lib/core/queue/application). */
  readonly app: string;
}

export interface WaitLineOptions {
  /** How long a request waits before it competes one class higher. */
  readonly agingMs: number;
  /** An application's weight in the rotation (> 0): 1 unless an operator set one. */
  readonly weightOf: (app: string) => number;
}

interface Entry<T> {
  readonly item: T;
  readonly claim: WaitClaim;
  readonly since: number;
  /** Arrival order: two arrivals in one millisecond are still first and second. */
  readonly order: number;
}

/** One application's waiting requests, one first-come list per priority. */
interface Lane<T> {
  readonly byPriority: Map<Priority, Entry<T>[]>;
  size: number;
  pass: number;
}

/** How many wait, by priority and by application (for /fleet/queue). */
export interface WaitCounts {
  readonly byPriority: Readonly<Record<Priority, number>>;
  readonly byApp: ReadonlyMap<string, number>;
}

export class WaitLine<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  /** Passes of applications that stopped waiting, kept while others wait: leaving and coming back is no reset. */
  private readonly passes = new Map<string, number>();
  private count = 0;
  private arrivals = 0;

  constructor(private readonly options: WaitLineOptions) {}

  get size(): number {
    return this.count;
  }

  push(item: T, claim: WaitClaim, now: number): void {
    let lane = this.lanes.get(claim.app);
    if (lane === undefined) {
      const floor = this.lowestPass();
      const kept = this.passes.get(claim.app);
      this.passes.delete(claim.app);
      lane = { byPriority: new Map(), size: 0, pass: Math.max(kept ?? floor, floor) };
      this.lanes.set(claim.app, lane);
    }
    const list = lane.byPriority.get(claim.priority);
    this.arrivals += 1;
    const entry: Entry<T> = { item, claim, since: now, order: this.arrivals };
    if (list === undefined) lane.byPriority.set(claim.priority, [entry]);
    else list.push(entry);
    lane.size += 1;
    this.count += 1;
  }

  /** Takes `item` out of line (its client left, or its wait timed out); false when it was not waiting. */
  remove(item: T): boolean {
    for (const [app, lane] of this.lanes) {
      for (const [priority, list] of lane.byPriority) {
        const at = list.findIndex((entry) => entry.item === item);
        if (at < 0) continue;
        list.splice(at, 1);
        if (list.length === 0) lane.byPriority.delete(priority);
        this.shrink(app, lane);
        return true;
      }
    }
    return false;
  }

  /** The next request to serve at `now`, taken out of line; undefined when nobody waits. */
  shift(now: number): T | undefined {
    let best: { app: string; lane: Lane<T>; priority: Priority; entry: Entry<T>; rank: number } | undefined;
    for (const [app, lane] of this.lanes) {
      for (const [priority, list] of lane.byPriority) {
        const entry = list[0];
        if (entry === undefined) continue;
        const rank = this.effectiveRank(entry, now);
        if (best === undefined || this.before({ rank, lane, entry }, best)) best = { app, lane, priority, entry, rank };
      }
    }
    if (best === undefined) return undefined;
    const list = best.lane.byPriority.get(best.priority) ?? [];
    list.shift();
    if (list.length === 0) best.lane.byPriority.delete(best.priority);
    best.lane.pass += 1 / this.weight(best.app);
    this.shrink(best.app, best.lane);
    return best.entry.item;
  }

  /** Every waiting item, for sending them all away (their node was ejected). */
  drain(): T[] {
    const items: T[] = [];
    for (const lane of this.lanes.values()) {
      for (const list of lane.byPriority.values()) for (const entry of list) items.push(entry.item);
    }
    this.lanes.clear();
    this.passes.clear();
    this.count = 0;
    return items;
  }

  counts(): WaitCounts {
    const byPriority: Record<Priority, number> = { high: 0, normal: 0, low: 0 };
    const byApp = new Map<string, number>();
    for (const [app, lane] of this.lanes) {
      byApp.set(app, lane.size);
      for (const [priority, list] of lane.byPriority) byPriority[priority] += list.length;
    }
    return { byPriority, byApp };
  }

  private effectiveRank(entry: Entry<T>, now: number): number {
    const aged = this.options.agingMs > 0 ? Math.floor(Math.max(0, now - entry.since) / this.options.agingMs) : 0;
    return Math.min(HIGHEST, RANK[entry.claim.priority] + aged);
  }

  /** Higher effective priority first; then the lower pass (the application's turn); then the first to arrive. */
  private before(
    a: { rank: number; lane: Lane<T>; entry: Entry<T> },
    b: { rank: number; lane: Lane<T>; entry: Entry<T> },
  ): boolean {
    if (a.rank !== b.rank) return a.rank > b.rank;
    if (a.lane !== b.lane && a.lane.pass !== b.lane.pass) return a.lane.pass < b.lane.pass;
    return a.entry.order < b.entry.order;
  }

  private weight(app: string): number {
    const weight = this.options.weightOf(app);
    return Number.isFinite(weight) && weight > 0 ? weight : 1;
  }

  private lowestPass(): number {
    let lowest: number | undefined;
    for (const lane of this.lanes.values()) lowest = lowest === undefined ? lane.pass : Math.min(lowest, lane.pass);
    return lowest ?? 0;
  }

  private shrink(app: string, lane: Lane<T>): void {
    lane.size -= 1;
    this.count -= 1;
    if (lane.size > 0) return;
    this.lanes.delete(app);
    if (this.lanes.size === 0) this.passes.clear();
    else this.passes.set(app, lane.pass);
  }
}
