/**
 * `GET /dashboard/events` on the streaming host, in process: `retry:` and the snapshot at once, an update
 * as soon as a node changes (the periodic update set far off, so only the change can send it), and the
 * stream ended with nothing left running when the client leaves and when its time is up. On the buffered
 * host the reply is the snapshot alone.
 */

import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { routes } from '../../functions/dashboard';
import { type EventsOptions, serveEvents } from '../../lib/features/events/serve-events';
import { initServices, type Services } from '../../lib/instance';
import { createBufferedHandler, createStreamingHandler, type RouteTable } from '../../lib/services/http/handler';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { makeHeartbeat } from '../helpers/factories';
import { httpResponseStreamFrom, RecordingStream } from '../helpers/recording-stream';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

let store: StoreFixture;
let services: Services;

beforeAll(async () => {
  store = await startStore('dashboard-events');
  services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
  await services.registry.recordHeartbeat(makeHeartbeat({ timestamp: Date.now() / 1000 }));
});

afterAll(async () => {
  await closeServices(services);
  await store.close();
});

const request = () => makeHttpEvent({ method: 'GET', path: '/dashboard/events' });

function eventsRoutes(options: EventsOptions): RouteTable {
  const deps = { ...services, health: async () => ({ score: 87 }) };
  return { 'GET /dashboard/events': (req, res) => serveEvents(deps, options, req, res) };
}

/** The named events in what was written so far, their payloads parsed. */
function eventsIn(text: string): { name: string; data: Record<string, unknown> }[] {
  return [...text.matchAll(/event: (\w+)\ndata: (.*)\n\n/g)].map((match) => ({
    name: match[1] as string,
    data: JSON.parse(match[2] as string) as Record<string, unknown>,
  }));
}

/** Waits (at most the test's timeout) until `ready` holds of what the stream carries. */
async function until(stream: RecordingStream, ready: (text: string) => boolean): Promise<string> {
  while (!ready(stream.text())) await new Promise((resolve) => setTimeout(resolve, 10));
  return stream.text();
}

/**
 * Records the timeouts set with one of `delays` (the stream's own, chosen odd so nothing else uses them)
 * and whether each was cleared or fired; `pending()` counts those still set.
 */
function watchTimers(delays: readonly number[]) {
  const original = globalThis.setTimeout;
  const originalClear = globalThis.clearTimeout;
  const watched = new Map<unknown, { settled: boolean }>();
  const set = jest.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
    if (ms === undefined || !delays.includes(ms)) return original(fn, ms);
    const entry = { settled: false };
    const handle = original(() => {
      entry.settled = true;
      fn();
    }, ms);
    watched.set(handle, entry);
    return handle;
  }) as typeof setTimeout);
  const clear = jest.spyOn(globalThis, 'clearTimeout').mockImplementation((handle) => {
    const entry = watched.get(handle);
    if (entry !== undefined) entry.settled = true;
    originalClear(handle);
  });
  return {
    set: () => watched.size,
    pending: () => [...watched.values()].filter((entry) => !entry.settled).length,
    restore: () => {
      set.mockRestore();
      clear.mockRestore();
    },
  };
}

describe('GET /dashboard/events', () => {
  it('sends retry and the snapshot at once, then an update when a node changes', async () => {
    const stream = new RecordingStream();
    const done = createStreamingHandler(
      eventsRoutes({ checkMs: 50, updateMs: 600_000 }),
      {},
      httpResponseStreamFrom,
    )(request(), stream);

    const opening = await until(stream, (text) => text.includes('event: snapshot'));
    await services.registry.recordHeartbeat(makeHeartbeat({ timestamp: Date.now() / 1000, draining: true }));
    const updated = await until(stream, (text) => text.includes('event: update'));
    stream.destroy();
    await done;

    expect(opening.startsWith('retry: 3000\n\nevent: snapshot\ndata: ')).toBe(true);
    const [snapshot, update] = eventsIn(updated);
    expect(snapshot?.data).toMatchObject({
      nodes: [{ node_id: 'studio', status: 'online', draining: false }],
      queues: { 'studio:llama3.2:3b': { pending: 0, in_flight: 1, concurrency: 4 } },
      health_score: 87,
      activity: [{ requests: 0 }, { requests: 0 }],
    });
    expect(update).toMatchObject({ name: 'update', data: { nodes: [{ node_id: 'studio', draining: true }] } });
    expect(stream.reply().headers['content-type']).toBe('text/event-stream; charset=utf-8');
  });

  it('stops, with no timer left, when the client leaves', async () => {
    const timers = watchTimers([23, 600_001]);
    const stream = new RecordingStream();
    const options = { checkMs: 23, updateMs: 46, maxDurationMs: 600_001 };
    const done = createStreamingHandler(eventsRoutes(options), {}, httpResponseStreamFrom)(request(), stream);
    await until(stream, (text) => text.includes('event: update'));

    stream.destroy();
    await done;
    timers.restore();

    expect(timers.set()).toBeGreaterThan(2);
    expect(timers.pending()).toBe(0);
  });

  it('ends by itself after its longest duration, with no timer left', async () => {
    const timers = watchTimers([23, 211]);
    const stream = new RecordingStream();

    await createStreamingHandler(
      eventsRoutes({ checkMs: 23, maxDurationMs: 211 }),
      {},
      httpResponseStreamFrom,
    )(request(), stream);
    timers.restore();

    expect(stream.writableEnded).toBe(true);
    expect(eventsIn(stream.text())[0]?.name).toBe('snapshot');
    expect(timers.set()).toBeGreaterThan(2);
    expect(timers.pending()).toBe(0);
  });

  it('answers the snapshot alone on the buffered host, through the dashboard route table', async () => {
    const reply = await createBufferedHandler(routes(services))(request());

    expect(reply.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(reply.body.startsWith('retry: 3000\n\nevent: snapshot\ndata: ')).toBe(true);
    expect(eventsIn(reply.body).map((event) => event.name)).toEqual(['snapshot']);
    // The dashboard's health monitor scores the fleet the events describe (0–100).
    expect(eventsIn(reply.body)[0]?.data).toEqual(expect.objectContaining({ health_score: expect.any(Number) }));
  });
});
