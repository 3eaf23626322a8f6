/**
 * Work gathered through one turn of the event loop and done together at its end (one `setImmediate`),
 * in the order it was added. Under load one turn brings the emulator many requests and node replies (about
 * twenty at c=64); run one after another from start to finish, each request walks the whole path — the
 * handler, routing, undici, the socket write — and finds every part of it cold in the CPU's caches. Done
 * phase by phase instead (every handler of the turn, then every reply's socket write), each part's code
 * and data are still warm for the next request (ARCHITECTURE.md §6.1). The emulator batches only in
 * company, with more than one invocation in flight (./server); a lone request waits for nothing.
 *
 * `run` must not throw: what it does for one item is its own to answer for, and the turn's other items
 * still run.
 */
export class EndOfTurn<T> {
  private items: T[] = [];

  constructor(private readonly run: (item: T) => void) {}

  /** Runs `item` at the end of this turn of the event loop, after the items added before it. */
  add(item: T): void {
    if (this.items.push(item) === 1) setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    const items = this.items;
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
