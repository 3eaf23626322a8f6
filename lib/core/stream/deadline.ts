/**
 * A deadline that fires whatever the garbage collector does (issue 19 item 1). `AbortSignal.timeout`
 * combined through `AbortSignal.any` can be collected on Node 20 before it fires (nodejs/node#57736),
 * leaving a call to a hung peer waiting for undici's own 600 s. Here the timer is ours: it holds the
 * controller, so the signal lives until it fires or `clear()` is called once the call is done.
 */
import { type AbortSource, watchAbort } from './abort-source';

export interface Deadline {
  /** Aborts when the time is up (reason: a `TimeoutError` DOMException) or when the parent aborts. */
  readonly signal: AbortSignal;
  /** Stops the timer and forgets the parent; call it when the guarded work is over. */
  clear(): void;
  /** Aborts now (work still running is of no use any more); a no-op once aborted. */
  abort(): void;
}

export function createDeadline(timeoutMs: number, parent?: AbortSource): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new DOMException(`the deadline of ${timeoutMs} ms passed`, 'TimeoutError'));
  }, timeoutMs);
  // A deadline never keeps a process alive on its own.
  timer.unref();
  let unwatch = () => {};
  if (parent !== undefined) {
    const follow = () => controller.abort(parent instanceof AbortSignal ? parent.reason : undefined);
    if (parent.aborted) follow();
    else unwatch = watchAbort(parent, follow);
  }
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      unwatch();
    },
    abort() {
      controller.abort(new DOMException('the work was stopped', 'AbortError'));
    },
  };
}

/** Runs `work` under a fresh deadline and clears it however `work` ends. */
export async function withDeadline<T>(
  timeoutMs: number,
  parent: AbortSource | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = createDeadline(timeoutMs, parent);
  try {
    return await work(deadline.signal);
  } finally {
    deadline.clear();
  }
}
