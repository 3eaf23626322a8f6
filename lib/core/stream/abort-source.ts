/**
 * The client going away, as the code that must stop with it watches it: an `AbortSignal`, or a cheaper
 * emitter of `abort` with an `aborted` flag (the response sink's `ClientGone`: an AbortSignal sets up
 * an EventTarget on its first listener, microseconds a request). Routing, queues and node requests
 * take either. Pure.
 */
import type { EventEmitter } from 'node:events';

export type AbortSource = AbortSignal | (EventEmitter & { readonly aborted: boolean });

/** Calls `onAbort` once when `source` aborts; returns the unsubscribe (safe to call more than once). */
export function watchAbort(source: AbortSource, onAbort: () => void): () => void {
  if (source instanceof AbortSignal) {
    source.addEventListener('abort', onAbort, { once: true });
    return () => source.removeEventListener('abort', onAbort);
  }
  source.once('abort', onAbort);
  return () => source.removeListener('abort', onAbort);
}
