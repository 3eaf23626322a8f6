/**
 * Work gathered through one turn of the event loop and done together at its end (one `setImmediate`),
 * in the order it was added (ARCHITECTURE.md §6.1). Under load one turn brings the router many requests
 * and node replies (about twenty at c=64). Run one after another from start to finish, each request walks
 * the whole path and finds every part of it cold in the CPU's caches. Done phase by phase instead, each
 * part's code and data are still warm for the next request. The trace recorder writes a turn's traces
 * this way (lib/services/analytics/trace); the emulator starts a turn's handlers and sends a turn's whole
 * replies this way, when more than one invocation is in flight (emulator/server).
 *
 * `run` must not throw: what it does for one item is its own to answer for, and the turn's other items
 * still run.
 */
export class EndOfTurn<T> {
  private items: T[] = [];

  /** `defer`: how the end of the turn is reached; tests pass their own. Default `setImmediate`. */
  constructor(
    private readonly run: (item: T) => void,
    private readonly defer: (flush: () => void) => void = setImmediate,
  ) {}

  /** Runs `item` at the end of this turn, after the items added before it; true when it opened the turn. */
  add(item: T): boolean {
    if (this.items.push(item) > 1) return false;
    this.defer(this.flush);
    return true;
  }

  /** Something waits for the end of the turn. */
  get pending(): boolean {
    return this.items.length > 0;
  }

  /** Runs what the turn has gathered now (a drain that cannot wait); the turn's end then finds nothing. */
  readonly flush = (): void => {
    const items = this.items;
    if (items.length === 0) return;
    this.items = [];
    for (const item of items) this.run(item);
  };
}

/** Resolves each waiter at the end of its turn: `await turn.next()` continues with the turn's others. */
export class TurnGate {
  private readonly waiters = new EndOfTurn<() => void>((resolve) => resolve());

  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.add(resolve));
  }
}
