/**
 * The write-behind queue (ARCHITECTURE.md §3.5: the hot path never waits for the table). Puts are
 * collapsed per key and sent with BatchWrite in groups of 25; counter increments to one key are summed
 * and sent as one UpdateItem `ADD`. A flush runs at least every `flushIntervalMs` and as soon as a
 * full batch is waiting; `flush()` drains everything queued before it was called (a Lambda awaits it
 * before its invocation ends). Failed writes go back in the queue and are retried with backoff —
 * never dropped — except a write the table rejects as invalid on its own, which is reported and
 * counted (`rejected`): retrying it could never succeed and would block every later flush.
 * Sources (`addSource`) hold many small records that are written together as a few items (a page of
 * traces is one item, not one write each) and counter writes (a second's rollups, summed per key):
 * every round that drains the queue asks them for both first, and from then on those are queued,
 * merged, retried and flushed like any put and `add`. A counter write may raise maxima too (the table's
 * `addCounters`: one request unless another writer raised one higher).
 */
import { causeText, logger } from '../platform/logger';
import { backoffDelay, sleep as realSleep } from './backoff';
import { chunk, settleLimited } from './concurrency';
import type { CounterFields, CounterMaxima, CounterSet } from './counter-update';
import { type DocItem, keyId } from './item';
import { type CounterWrite, createPendingWrites, type TakeScope } from './pending-writes';
import { BatchWriteIncompleteError, isPermanentWriteError } from './store-errors';
import type { Table } from './table';

/** Only the writes the queue sends, so a test can wrap a real table to fail on purpose. */
export type WriteBehindTable = Pick<Table, 'batchPut' | 'addCounters'>;

/** Time as the queue sees it; tests inject one to fire the flush timer on demand. */
export interface WriteBehindClock {
  /** Runs `callback` after `ms`; the real one is `unref()`'d so it never keeps a process alive. Returns a cancel. */
  schedule(callback: () => void, ms: number): () => void;
  /** Waits between retries inside an awaited `flush()` (referenced: the flush must finish). */
  sleep(ms: number): Promise<void>;
}

export interface WriteBehindOptions {
  /** Longest time a write waits in the queue. Default and maximum 1000. */
  readonly flushIntervalMs?: number;
  /** Items per BatchWrite, and the queue length that triggers a flush at once. Default and maximum 25. */
  readonly maxBatch?: number;
  /** Write requests in flight at once during a flush. Default 4. */
  readonly concurrency?: number;
  /** Failed rounds before `flush()` rejects (the items stay queued for the next flush). Default 5. */
  readonly maxFlushAttempts?: number;
  readonly clock?: WriteBehindClock;
  /**
   * Called with every failed background flush and every rejected write. Default: a warning through the
   * process logger, rate limited (one line per 10 s while the table is down, with the count suppressed).
   */
  readonly onError?: (error: unknown) => void;
}

export interface WriteBehindStats {
  /** put() and add() calls accepted. */
  readonly enqueued: number;
  /** Calls absorbed into a queued write to the same key (a replaced put, a summed increment). */
  readonly merged: number;
  /** BatchWriteItem and UpdateItem requests sent, re-sends and the extra requests of a raised maximum included. */
  readonly writeRequests: number;
  /** Items and counter updates the table confirmed. */
  readonly itemsWritten: number;
  /** Write requests sent again after a failure or for unprocessed items. */
  readonly retries: number;
  /** Flush rounds in which some write failed. */
  readonly failedFlushes: number;
  /** Writes the table refused as invalid (reported through onError, not retried). */
  readonly rejected: number;
}

/** Records kept in memory and written as a few items when the queue drains (./write-behind header). */
export interface ItemSource {
  /** True when `drain` would return something. */
  hasPending(): boolean;
  /** The items built from everything recorded since the last call; afterwards the source is empty. */
  drain(): DocItem[];
  /** The counter writes built from what was recorded, taken with the items (same contract). */
  drainCounters?(): readonly SourceCounters[];
}

/** A counter write a source hands over: the queue sums it into any queued write of its key. */
export interface SourceCounters {
  readonly pk: string;
  readonly sk: string;
  readonly counters: CounterFields;
  readonly set?: CounterSet;
  readonly maxima?: CounterMaxima;
}

export interface WriteBehind {
  put(item: DocItem): void;
  /** Registers a source; call `touch()` whenever it records something, so a flush gets scheduled. */
  addSource(source: ItemSource): void;
  /** A source has something new: make sure it goes out within the flush interval. */
  touch(): void;
  /**
   * The table answered another call (a read of the fleet): writes waiting out a backoff go now rather
   * than up to `MAX_RETRY_DELAY_MS` after the table came back. Does nothing unless a backoff is pending.
   */
  retryNow(): void;
  /** Sums `counters` into the key's queued write; `set` fields replace, `maxima` merge to the larger. */
  add(pk: string, sk: string, counters: CounterFields, set?: CounterSet, maxima?: CounterMaxima): void;
  flush(): Promise<void>;
  /** Flushes and stops the timer. Later writes are still accepted and flushed at once. */
  close(): Promise<void>;
  /** True once `close` was called: periodic writers (queue publications) stop then. */
  isClosed(): boolean;
  /** Queued and in-flight writes not yet confirmed by the table. */
  pending(): number;
  stats(): WriteBehindStats;
}

export const realClock: WriteBehindClock = {
  schedule(callback, ms) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
  sleep: realSleep,
};

const MAX_FLUSH_INTERVAL_MS = 1000;
const MAX_BATCH = 25;
const MAX_RETRY_DELAY_MS = 30_000;

function checkOptions(flushIntervalMs: number, maxBatch: number): void {
  if (!(flushIntervalMs > 0 && flushIntervalMs <= MAX_FLUSH_INTERVAL_MS)) {
    throw new Error(`flushIntervalMs must be in (0, ${MAX_FLUSH_INTERVAL_MS}], got ${flushIntervalMs}`);
  }
  if (!Number.isInteger(maxBatch) || maxBatch < 1 || maxBatch > MAX_BATCH) {
    throw new Error(`maxBatch must be 1..${MAX_BATCH}, got ${maxBatch}`);
  }
}

export function createWriteBehind(table: WriteBehindTable, options: WriteBehindOptions = {}): WriteBehind {
  const flushIntervalMs = options.flushIntervalMs ?? MAX_FLUSH_INTERVAL_MS;
  const maxBatch = options.maxBatch ?? MAX_BATCH;
  checkOptions(flushIntervalMs, maxBatch);
  const concurrency = options.concurrency ?? 4;
  const maxFlushAttempts = options.maxFlushAttempts ?? 5;
  const clock = options.clock ?? realClock;
  const onError =
    options.onError ??
    ((error: unknown) =>
      logger().limited('write-behind', 'warn', 'write-behind: a table write failed', { cause: causeText(error) }));

  const buffer = createPendingWrites(maxBatch);
  /** Keys whose put the table refused inside a batch: sent alone next time, to find the bad one. */
  const alone = new Set<string>();
  let inFlight = 0;
  let round: Promise<unknown> | undefined;
  let cancelTimer: (() => void) | undefined;
  let consecutiveFailures = 0;
  let closed = false;
  const stats = {
    enqueued: 0,
    merged: 0,
    writeRequests: 0,
    itemsWritten: 0,
    retries: 0,
    failedFlushes: 0,
    rejected: 0,
  };

  const sources: ItemSource[] = [];
  const sourcesPending = () => sources.some((source) => source.hasPending());
  const queued = () => buffer.putCount() + buffer.counterCount() + (sourcesPending() ? 1 : 0);

  // --- sending: a round takes from the buffer, sends, and puts back whatever failed ----------

  function reject(error: unknown, what: string): void {
    stats.rejected++;
    onError(new Error(`the table rejected ${what}; it is not retried: ${String(error)}`, { cause: error }));
  }

  async function sendPuts(items: readonly DocItem[]): Promise<void> {
    try {
      const outcome = await table.batchPut(items);
      count(outcome);
      for (const item of items) alone.delete(keyId(item.pk, item.sk));
    } catch (error) {
      const incomplete = error instanceof BatchWriteIncompleteError ? error : undefined;
      count(incomplete?.outcome ?? { requests: 1, retries: 0, written: 0 });
      const unwritten = incomplete?.unwritten ?? items;
      const permanent = incomplete === undefined ? isPermanentWriteError(error) : !incomplete.retryable;
      const [only] = unwritten;
      if (permanent && unwritten.length === 1 && only !== undefined) {
        alone.delete(keyId(only.pk, only.sk));
        reject(error, `the put of ${only.pk} / ${only.sk}`);
        return;
      }
      stats.retries++;
      for (const item of unwritten) {
        // Invalid somewhere in this batch: send each alone next time to find the one to reject.
        if (permanent) alone.add(keyId(item.pk, item.sk));
        buffer.requeuePut(item);
      }
      throw error;
    } finally {
      inFlight -= items.length;
    }
  }

  function count(outcome: { requests: number; retries: number; written: number }): void {
    stats.writeRequests += outcome.requests;
    stats.retries += outcome.retries;
    stats.itemsWritten += outcome.written;
  }

  async function sendCounters(write: CounterWrite): Promise<void> {
    try {
      // Awaited first: `+= await` would read the count before the wait and lose concurrent updates.
      const requests = await table.addCounters(write.pk, write.sk, write.counters, write.set, write.maxima);
      stats.writeRequests += requests;
      stats.itemsWritten++;
    } catch (error) {
      stats.writeRequests++;
      if (isPermanentWriteError(error)) {
        reject(error, `the counter update of ${write.pk} / ${write.sk}`);
        return;
      }
      // An ADD that failed in transit may have been applied: a retry can then count twice. Without
      // transactions (the stand-in has none) this is the price of never losing an increment.
      stats.retries++;
      buffer.requeueCounters(write);
      throw error;
    } finally {
      inFlight--;
    }
  }

  function putTasks(items: readonly DocItem[]): (() => Promise<void>)[] {
    const single = items.filter((item) => alone.has(keyId(item.pk, item.sk)));
    const batched = items.filter((item) => !alone.has(keyId(item.pk, item.sk)));
    return [...chunk(batched, maxBatch), ...single.map((item) => [item])].map((group) => () => sendPuts(group));
  }

  function drainSource(source: ItemSource): void {
    for (const item of source.drain()) buffer.put(item);
    for (const write of source.drainCounters?.() ?? [])
      buffer.add(write.pk, write.sk, write.counters, write.set ?? {}, write.maxima);
  }

  /** Sends what the scope takes; resolves with the first error, or undefined when all was written. */
  async function sendRound(scope: TakeScope): Promise<unknown> {
    if (scope === 'all') for (const source of sources) drainSource(source);
    const items = buffer.takePuts(scope);
    const writes = buffer.takeCounters(scope);
    inFlight += items.length + writes.length;
    const tasks = [...putTasks(items), ...writes.map((write) => () => sendCounters(write))];
    const results = await settleLimited(tasks, concurrency);
    const failure = results.find((result) => result.status === 'rejected');
    if (failure === undefined) return undefined;
    stats.failedFlushes++;
    return failure.reason ?? new Error('a table write failed');
  }

  /**
   * One round at a time, so two writes of one key never race each other to the table. Afterwards the
   * queue is looked after (see `schedule`).
   */
  async function exclusiveRound(scope: TakeScope): Promise<unknown> {
    while (round !== undefined) await round;
    const current = sendRound(scope);
    round = current;
    let error: unknown;
    try {
      error = await current;
    } finally {
      round = undefined;
    }
    consecutiveFailures = error === undefined ? 0 : consecutiveFailures + 1;
    schedule();
    return error;
  }

  // --- scheduling ---------------------------------------------------------------------------

  function arm(delayMs: number): void {
    if (cancelTimer !== undefined || queued() === 0) return;
    cancelTimer = clock.schedule(() => {
      cancelTimer = undefined;
      void backgroundRound('all');
    }, delayMs);
  }

  function disarm(): void {
    cancelTimer?.();
    cancelTimer = undefined;
  }

  /**
   * Called after every enqueue and round: failed writes wait for a backoff; after close everything
   * goes at once; otherwise full batches go at once and the rest waits at most `flushIntervalMs`.
   * While a round runs nothing starts: the round calls this again when it ends.
   */
  function schedule(): void {
    if (queued() === 0 || round !== undefined) return;
    if (consecutiveFailures > 0) {
      arm(backoffDelay(consecutiveFailures, flushIntervalMs, MAX_RETRY_DELAY_MS));
      return;
    }
    if (closed) {
      disarm();
      void backgroundRound('all');
      return;
    }
    if (buffer.putCount() >= maxBatch || buffer.counterCount() >= maxBatch) void backgroundRound('full');
    // The timer keeps running through full-batch rounds, so what they leave behind still goes in time.
    arm(flushIntervalMs);
  }

  async function backgroundRound(scope: TakeScope): Promise<void> {
    const error = await exclusiveRound(scope);
    if (error !== undefined) onError(error);
  }

  /** Drains everything queued before the call, retrying failed writes a few times. */
  async function flush(): Promise<void> {
    for (let failures = 0; ; ) {
      // A round that starts now takes everything queued so far, failed writes put back included.
      const error = await exclusiveRound('all');
      if (error === undefined) return;
      failures++;
      if (failures >= maxFlushAttempts) throw error;
      disarm(); // this loop is the retry; the timer would only race it
      await clock.sleep(backoffDelay(failures, 50, MAX_RETRY_DELAY_MS));
    }
  }

  // --- the interface ------------------------------------------------------------------------

  return {
    put(item) {
      if (buffer.put(item)) stats.merged++;
      stats.enqueued++;
      schedule();
    },
    add(pk, sk, increments, set = {}, maxima = {}) {
      if (buffer.add(pk, sk, increments, set, maxima)) stats.merged++;
      stats.enqueued++;
      schedule();
    },
    addSource(source) {
      sources.push(source);
    },
    touch() {
      if (cancelTimer === undefined) schedule();
    },
    retryNow() {
      if (consecutiveFailures === 0 || round !== undefined || cancelTimer === undefined) return;
      disarm();
      void backgroundRound('all');
    },
    flush,
    async close() {
      closed = true;
      disarm();
      await flush();
    },
    isClosed: () => closed,
    pending: () => queued() + inFlight,
    stats: () => ({ ...stats }),
  };
}
