import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spacedArrivals } from '../../../bench/spaced-arrivals';
import { spacedSchedule } from '../../../bench/spaced-schedule';

/** Every request's server, kind and arrival time; `/slow` waits 30 ms before its first byte, `/fail` answers 503. */
const arrivals: { path: string; streaming: boolean; at: number }[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const streaming = Buffer.concat(chunks).toString() === 'streaming';
      arrivals.push({ path: request.url ?? '', streaming, at: performance.now() });
      const answer = () => response.writeHead(request.url === '/fail' ? 503 : 200).end('{}');
      if (request.url === '/slow') setTimeout(answer, 30);
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('spacedArrivals', () => {
  it('sends on the schedule, to each target in turn, and times the counted requests to their first byte', async () => {
    arrivals.length = 0;
    const schedule = spacedSchedule(['fast', 'slow'] as const, { perTarget: 4, seed: 1, meanGapMs: 40, warmUp: 1 });
    const started = performance.now();
    const results = await spacedArrivals({ fast: `${base}/fast`, slow: `${base}/slow` }, schedule, (streaming) =>
      streaming ? 'streaming' : 'plain',
    );

    expect(arrivals.map((arrival) => arrival.path)).toEqual(schedule.map((send) => `/${send.target}`));
    expect(arrivals.map((arrival) => arrival.streaming)).toEqual(schedule.map((send) => send.streaming));
    // Open loop: the slow target's answer (30 ms) does not hold back the sends after it.
    const last = schedule.at(-1)?.atMs ?? 0;
    expect((arrivals.at(-1)?.at ?? 0) - started).toBeLessThan(last + 25);
    for (const target of ['fast', 'slow'] as const) {
      expect(results[target].streaming).toHaveLength(2);
      expect(results[target].plain).toHaveLength(2);
    }
    expect(Math.min(...results.slow.streaming, ...results.slow.plain)).toBeGreaterThanOrEqual(29);
    expect(Math.max(...results.fast.streaming, ...results.fast.plain)).toBeLessThan(29);
  });

  it('fails when a target answers with an error', async () => {
    const schedule = spacedSchedule(['fail'] as const, { perTarget: 1, seed: 1, meanGapMs: 10, warmUp: 0 });
    await expect(spacedArrivals({ fail: `${base}/fail` }, schedule, () => '{}')).rejects.toThrow(
      /1 spaced requests failed/,
    );
  });
});
