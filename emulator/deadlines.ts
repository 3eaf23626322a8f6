/**
 * Lambda's time-out for every invocation in flight, with one timer for all of them: a request adds
 * itself and removes itself (O(1)), and a sweep once a second ends those past their deadline. Cheaper
 * than a timer per request, and a second's precision is all a time-out of seconds needs.
 */
export interface Deadlines {
  /** Registers an invocation; the returned function unregisters it. */
  add(deadline: number, onExpired: () => void): () => void;
  stop(): void;
}

export function createDeadlines(sweepMs = 1000, now: () => number = Date.now): Deadlines {
  const pending = new Map<number, { deadline: number; onExpired: () => void }>();
  let nextId = 0;
  let timer: NodeJS.Timeout | undefined;
  const sweep = () => {
    const time = now();
    for (const [id, entry] of pending) {
      if (entry.deadline > time) continue;
      pending.delete(id);
      entry.onExpired();
    }
    if (pending.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    add(deadline, onExpired) {
      const id = nextId++;
      pending.set(id, { deadline, onExpired });
      if (timer === undefined) {
        timer = setInterval(sweep, sweepMs);
        timer.unref();
      }
      return () => pending.delete(id);
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      pending.clear();
    },
  };
}
