/**
 * `GET /dashboard/events` (issue 22 item 7): Server-Sent Events for the dashboard. The stream opens with
 * `retry:` and an `event: snapshot` with the whole fleet (./fleet-event), then sends `event: update` (the
 * same full payload) every `updateMs` (2 s) and as soon as the fingerprint of what it watches changes,
 * checked every `checkMs` (500 ms) — never per routed request. A `: keep-alive` comment goes out when
 * nothing else did for `keepAliveMs` (a table that does not answer), so idle proxies keep it open. It stops
 * when the client leaves, and ends by itself after `maxDurationMs` (10 min), well before the Lambda limit
 * of 15 min: the browser reconnects after `retry` through the streaming integration. On the buffered
 * host (serverless-offline) nothing streams: the reply is `retry:` and the snapshot, and the browser
 * reconnects for the next one.
 */
import { encodeSseEvent, encodeSseRetry, SSE_KEEP_ALIVE } from '../../core/stream/sse';
import { SSE_TYPE } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import { createEventReader, type EventReaderOptions, type EventsDeps } from './fleet-event-reader';

export interface EventsOptions extends EventReaderOptions {
  readonly retryMs?: number;
  readonly updateMs?: number;
  readonly checkMs?: number;
  readonly keepAliveMs?: number;
  readonly maxDurationMs?: number;
}

export const EVENTS_DEFAULTS = {
  retryMs: 3000,
  updateMs: 2000,
  checkMs: 500,
  keepAliveMs: 15_000,
  maxDurationMs: 600_000,
} as const;

/** Resolves when the client leaves or the stream's time is up; `wait` sleeps until then at most. */
class StreamLife {
  stopped = false;
  private wake: (() => void) | undefined;
  private sleep: NodeJS.Timeout | undefined;
  private readonly limit: NodeJS.Timeout;
  private readonly onGone = () => this.stop();

  constructor(
    private readonly response: ResponseSink,
    maxDurationMs: number,
  ) {
    this.limit = setTimeout(this.onGone, maxDurationMs);
    response.clientGone.once('abort', this.onGone);
    if (response.clientGone.aborted) this.stop();
  }

  wait(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
      this.sleep = setTimeout(resolve, ms);
    });
  }

  /** Clears every timer and listener: nothing of the stream is left running. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.limit);
    clearTimeout(this.sleep);
    this.response.clientGone.off('abort', this.onGone);
    this.wake?.();
  }
}

export async function serveEvents(
  deps: EventsDeps,
  options: EventsOptions,
  _request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const settings = { ...EVENTS_DEFAULTS, ...definedOf(options) };
  const clock = options.clock ?? Date.now;
  const log = options.log ?? ((line: string) => console.warn(line));
  const reader = createEventReader(deps, options);
  const first = await reader.read();
  response.start({
    statusCode: 200,
    headers: { 'content-type': SSE_TYPE, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
  });
  const opening = encodeSseRetry(settings.retryMs) + encodeSseEvent('snapshot', first.event);
  if (!response.streaming) {
    await response.end(opening);
    return;
  }
  const life = new StreamLife(response, settings.maxDurationMs);
  try {
    await response.write(opening);
    let fingerprint = first.fingerprint;
    let sentAt = clock();
    let wroteAt = sentAt;
    while (!life.stopped) {
      await life.wait(settings.checkMs);
      if (life.stopped) break;
      const reading = await reader.read().catch((error: unknown) => {
        // The stream stays open (keep-alives) and tries again at the next check.
        log(`dashboard events: reading the fleet failed: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      });
      if (life.stopped) break;
      const now = clock();
      if (reading !== undefined && (reading.fingerprint !== fingerprint || now - sentAt >= settings.updateMs)) {
        await response.write(encodeSseEvent('update', reading.event));
        fingerprint = reading.fingerprint;
        sentAt = now;
        wroteAt = now;
      } else if (now - wroteAt >= settings.keepAliveMs) {
        await response.write(SSE_KEEP_ALIVE);
        wroteAt = now;
      }
    }
  } finally {
    life.stop();
  }
  await response.end();
}

function definedOf(options: EventsOptions): Partial<typeof EVENTS_DEFAULTS> {
  const defined: Record<string, number> = {};
  for (const key of Object.keys(EVENTS_DEFAULTS) as (keyof typeof EVENTS_DEFAULTS)[]) {
    const value = options[key];
    if (value !== undefined) defined[key] = value;
  }
  return defined;
}
