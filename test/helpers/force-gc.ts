/**
 * The garbage collector on demand, as `node --expose-gc` gives it (`global.gc`), also inside jest's
 * workers where that flag cannot be passed: the flag is set at run time and `gc` read from a fresh
 * context, which is exactly what the flag exposes. For tests of deadlines that must survive collection.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = () => void;

export function exposedGc(): Gc {
  const existing = (globalThis as { gc?: Gc }).gc;
  if (existing !== undefined) return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as Gc;
}

/** Runs a full collection every `everyMs` until the returned stop is called. */
export function collectGarbageEvery(everyMs: number): () => void {
  const gc = exposedGc();
  const timer = setInterval(gc, everyMs);
  return () => clearInterval(timer);
}
