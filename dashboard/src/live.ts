/**
 * The page's live feed: `GET /dashboard/events` read with fetch rather than EventSource, so the API key
 * travels in the `Authorization` header (EventSource cannot send one). eventsource-parser does the SSE
 * framing. The feed keeps the latest `snapshot`/`update` event and its connection state, and reconnects
 * on its own: after the server ends the stream (it does every 10 minutes), after `retry` ms as the server
 * asked; after a failure (the router restarting), with a back-off from 1 s to 10 s; and when nothing —
 * not even a keep-alive comment — arrived for 40 s. One feed per page, started by the app.
 */
import { createParser } from 'eventsource-parser';
import type { FleetEvent } from '../../lib/features/events/fleet-event';
import { apiUrl, authorizedFetch } from './api';
import { createStore } from './store';

export type { FleetEvent };

/** `connecting` before the first event; `live` while events arrive; `reconnecting` after a loss. */
export type LiveState = 'connecting' | 'live' | 'reconnecting';

export interface LiveFeed {
  /** The latest event; undefined before the first. */
  readonly event: FleetEvent | undefined;
  readonly state: LiveState;
  /** `Date.now()` when the latest event arrived. */
  readonly receivedAt: number | undefined;
}

export const liveFeed = createStore<LiveFeed>({ event: undefined, state: 'connecting', receivedAt: undefined });

const SILENCE_MS = 40_000;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads one connection until it ends or fails; resolves with the retry delay the server asked for. */
async function readOnce(retryMs: number): Promise<number> {
  const controller = new AbortController();
  let silence = setTimeout(() => controller.abort(), SILENCE_MS);
  const heard = () => {
    clearTimeout(silence);
    silence = setTimeout(() => controller.abort(), SILENCE_MS);
  };
  let retry = retryMs;
  const parser = createParser({
    onRetry: (ms) => {
      retry = ms;
    },
    onEvent: (message) => {
      if (message.event !== 'snapshot' && message.event !== 'update') return;
      const event = JSON.parse(message.data) as FleetEvent;
      liveFeed.set({ event, state: 'live', receivedAt: Date.now() });
    },
  });
  try {
    const response = await authorizedFetch(apiUrl('events'), {
      headers: { accept: 'text/event-stream' },
      cache: 'no-store',
      signal: controller.signal,
    });
    if (!response.ok || response.body === null) throw new Error(`events answered ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return retry;
      heard();
      parser.feed(value);
    }
  } finally {
    clearTimeout(silence);
  }
}

let started = false;

/** Starts the feed (once per page); it runs as long as the page is open. */
export function startLiveFeed(): void {
  if (started) return;
  started = true;
  void (async () => {
    let retryMs = 3000;
    let backoff = FIRST_BACKOFF_MS;
    for (;;) {
      let ended = false;
      try {
        retryMs = await readOnce(retryMs);
        ended = true;
        backoff = FIRST_BACKOFF_MS;
      } catch {
        // Refused, unreachable or silent: shown as reconnecting, tried again after the back-off.
      }
      const current = liveFeed.get();
      if (current.state !== 'connecting') liveFeed.set({ ...current, state: 'reconnecting' });
      await sleep(ended ? retryMs : backoff);
      if (!ended) backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  })();
}
