/**
 * dynalite 4 reads every Query and Scan through an abstract-level iterator wrapped in a stream, and when
 * the stream ends or is destroyed it closes the iterator with `iterator.return()` — which abstract-level's
 * iterators do not have (they close with `close()`). So every read left its iterator open, and with it
 * the LevelDB snapshot the iterator reads from, which pins the memtables and table files written since:
 * the table's memory grew by about 30 KB per read, without bound (2,000 empty Queries among 2,000
 * BatchWrites: +63 MB resident, every iterator still open; in memory, the same through the store's
 * versions). The emulator reads the fleet twice a second, so a router left running grew by tens of MB
 * an hour.
 *
 * `closeReadIterators` gives the iterators dynalite opens a `return()` that closes them, by wrapping
 * `values`, `keys` and `iterator` on the prototype its LevelDB classes share (on disk and in memory), once
 * per process, before any store is made. Reads that run to the end, and reads a Limit cuts short, both
 * end in that `return()`.
 */
import { createRequire } from 'node:module';

interface ClosableIterator {
  close(): Promise<void>;
  return?: () => Promise<{ done: true; value: undefined }>;
}

type IteratorFactory = (this: unknown, ...args: unknown[]) => ClosableIterator;

const READERS = ['values', 'keys', 'iterator'] as const;
const PATCHED = Symbol.for('fleet-router.dynalite-iterators-closed');

export function closeReadIterators(): void {
  const fromDynalite = createRequire(require.resolve('dynalite'));
  const { Level } = fromDynalite('level') as { Level: { prototype: object } };
  const { MemoryLevel } = fromDynalite('memory-level') as { MemoryLevel: { prototype: object } };
  for (const store of [Level, MemoryLevel]) {
    // The class abstract-level defines `values`, `keys` and `iterator` on: both stores' parent.
    const shared = Object.getPrototypeOf(store.prototype) as Record<string | symbol, unknown>;
    if (shared[PATCHED] === true) continue;
    for (const name of READERS) {
      const open = shared[name] as IteratorFactory | undefined;
      if (typeof open !== 'function') continue;
      shared[name] = function (this: unknown, ...args: unknown[]): ClosableIterator {
        const iterator = open.apply(this, args);
        if (iterator.return === undefined) {
          iterator.return = async () => {
            await iterator.close();
            return { done: true, value: undefined };
          };
        }
        return iterator;
      };
    }
    shared[PATCHED] = true;
  }
}
