/**
 * Lambda's time-out for every invocation in flight, with one timer for all of them: a request adds
 * itself and removes itself, and a sweep once a second ends those past their deadline. Cheaper than a
 * timer per request, and a second's precision is all a time-out of seconds needs. The invocations are
 * a doubly linked list of small entries: adding and removing one is a few pointer writes, where a map
 * keyed by id hashed and rehashed on every request (it showed in the emulator's own cost).
 */
export interface Deadlines {
  /** Registers an invocation; the returned function unregisters it. */
  add(deadline: number, onExpired: () => void): () => void;
  stop(): void;
}

class Entry {
  previous: Entry | undefined;
  next: Entry | undefined;
  linked = true;

  constructor(
    readonly deadline: number,
    readonly onExpired: () => void,
    private readonly list: EntryList,
  ) {}

  /** Unregisters; safe to call more than once. */
  readonly remove = (): void => {
    if (this.linked) this.list.unlink(this);
  };
}

class EntryList {
  head: Entry | undefined;
  tail: Entry | undefined;
  size = 0;

  push(entry: Entry): void {
    entry.previous = this.tail;
    if (this.tail === undefined) this.head = entry;
    else this.tail.next = entry;
    this.tail = entry;
    this.size += 1;
  }

  unlink(entry: Entry): void {
    entry.linked = false;
    if (entry.previous === undefined) this.head = entry.next;
    else entry.previous.next = entry.next;
    if (entry.next === undefined) this.tail = entry.previous;
    else entry.next.previous = entry.previous;
    entry.previous = undefined;
    entry.next = undefined;
    this.size -= 1;
  }

  clear(): void {
    for (let entry = this.head; entry !== undefined; entry = entry.next) entry.linked = false;
    this.head = undefined;
    this.tail = undefined;
    this.size = 0;
  }
}

export function createDeadlines(sweepMs = 1000, now: () => number = Date.now): Deadlines {
  const pending = new EntryList();
  let timer: NodeJS.Timeout | undefined;
  const sweep = () => {
    const time = now();
    let entry = pending.head;
    while (entry !== undefined) {
      const next = entry.next;
      if (entry.deadline <= time) {
        pending.unlink(entry);
        entry.onExpired();
      }
      entry = next;
    }
    if (pending.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    add(deadline, onExpired) {
      const entry = new Entry(deadline, onExpired, pending);
      pending.push(entry);
      if (timer === undefined) {
        timer = setInterval(sweep, sweepMs);
        timer.unref();
      }
      return entry.remove;
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      pending.clear();
    },
  };
}
