/**
 * The merge buffer behind the write-behind queue (ARCHITECTURE.md §3.5): puts collapsed per key (a later
 * put replaces an earlier one — BatchWrite also refuses one key twice), counter increments to one key
 * summed (maxima merged: the larger wins), and failed writes put back without undoing anything newer that
 * arrived meanwhile. A write of more counters than one update can carry is taken as several
 * (counter-update `splitCounters`), each sent, failed and put back on its own, so none is counted twice.
 */
import { type CounterFields, type CounterMaxima, type CounterSet, splitCounters } from './counter-update';
import { type DocItem, keyId } from './item';

export interface CounterWrite {
  readonly pk: string;
  readonly sk: string;
  readonly counters: Record<string, number>;
  readonly set: Record<string, string | number>;
  /** Attributes raised to at least these values (lib/services/store/table `addCounters`). */
  readonly maxima: Record<string, number>;
}

/**
 * What a round takes: `all`, or only `full` batches — a partial batch and the counters then wait for
 * the timer, so they fill up and merge more.
 */
export type TakeScope = 'all' | 'full';

export interface PendingWrites {
  /** True when the put replaced a queued put of the same key. */
  put(item: DocItem): boolean;
  /** True when the increments merged into a queued write of the same key. */
  add(pk: string, sk: string, counters: CounterFields, set: CounterSet, maxima?: CounterMaxima): boolean;
  /** A put that failed in flight; ignored when a newer put of its key is queued. */
  requeuePut(item: DocItem): void;
  /** Increments that failed in flight; summed into any newer ones, whose `set` fields win. */
  requeueCounters(write: CounterWrite): void;
  takePuts(scope: TakeScope): DocItem[];
  takeCounters(scope: TakeScope): CounterWrite[];
  putCount(): number;
  counterCount(): number;
}

// for…in over these small plain records, not Object.entries: every routed request adds its counters
// here (twice with a tag), and an array of pairs per call was a measurable part of its cost.
function mergeInto(into: CounterWrite, counters: CounterFields, set: CounterSet, maxima: CounterMaxima): void {
  for (const name in counters) into.counters[name] = (into.counters[name] ?? 0) + (counters[name] as number);
  for (const name in set) into.set[name] = set[name] as string | number;
  for (const name in maxima) {
    const value = maxima[name] as number;
    const held = into.maxima[name];
    if (held === undefined || value > held) into.maxima[name] = value;
  }
}

const NONE: CounterMaxima = {};

/** A write as the updates that carry it: counters split, the set fields in each, the maxima in the first. */
function parts(write: CounterWrite): CounterWrite[] {
  const counters = splitCounters(write.counters);
  if (counters.length === 1) return [write];
  return counters.map((part, index) => ({
    pk: write.pk,
    sk: write.sk,
    counters: part,
    set: write.set,
    maxima: index === 0 ? write.maxima : {},
  }));
}

export function createPendingWrites(batchSize: number): PendingWrites {
  const puts = new Map<string, DocItem>();
  let counters = new Map<string, CounterWrite>();

  return {
    put(item) {
      const key = keyId(item.pk, item.sk);
      const replaced = puts.has(key);
      puts.set(key, item);
      return replaced;
    },
    add(pk, sk, increments, set, maxima = NONE) {
      for (const name in increments) {
        const amount = increments[name] as number;
        if (!Number.isFinite(amount)) throw new Error(`counter "${name}" cannot be incremented by ${amount}`);
      }
      for (const name in maxima) {
        const value = maxima[name] as number;
        if (!Number.isFinite(value)) throw new Error(`maximum "${name}" cannot be ${value}`);
      }
      const key = keyId(pk, sk);
      const existing = counters.get(key);
      if (existing !== undefined) {
        mergeInto(existing, increments, set, maxima);
        return true;
      }
      counters.set(key, { pk, sk, counters: { ...increments }, set: { ...set }, maxima: { ...maxima } });
      return false;
    },
    requeuePut(item) {
      const key = keyId(item.pk, item.sk);
      if (!puts.has(key)) puts.set(key, item);
    },
    requeueCounters(write) {
      const key = keyId(write.pk, write.sk);
      const newer = counters.get(key);
      const merged: CounterWrite = {
        pk: write.pk,
        sk: write.sk,
        counters: { ...write.counters },
        set: { ...write.set },
        maxima: { ...write.maxima },
      };
      if (newer !== undefined) mergeInto(merged, newer.counters, newer.set, newer.maxima);
      counters.set(key, merged);
    },
    takePuts(scope) {
      const count = scope === 'all' ? puts.size : Math.floor(puts.size / batchSize) * batchSize;
      const items: DocItem[] = [];
      for (const [key, item] of puts) {
        if (items.length >= count) break;
        items.push(item);
        puts.delete(key);
      }
      return items;
    },
    takeCounters(scope) {
      if (scope === 'full' && counters.size < batchSize) return [];
      const writes = [...counters.values()].flatMap(parts);
      counters = new Map();
      return writes;
    },
    putCount: () => puts.size,
    counterCount: () => counters.size,
  };
}
