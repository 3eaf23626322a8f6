import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spacedArrivals } from '../../../bench/spaced-arrivals';
import { spacedSchedule } from '../../../bench/spaced-schedule';

/**
 * Every request's path and kind, in the order they came. `/held` answers nothing until `expected` requests
 * have come (then all of them, 30 ms later): a closed-loop sender would wait for it forever. `/fail` answers 503.
 */
const arrivals: { path: string; streaming: boolean }[] = [];
const held: (() => void)[] = [];
let expected = 0;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      arrivals.push({ path: request.url ?? '', streaming: Buffer.concat(chunks).toString() === 'streaming' });
      const answer = () => response.writeHead(request.url === '/fail' ? 503 : 200).end('{}');
      if (request.url === '/held') held.push(() => setTimeout(answer, 30));
      else answer();
      if (arrivals.length === expected) for (const release of held.splice(0)) release();
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
  it('sends on the schedule, open loop, to each target in turn, and times the counted requests to their first byte', async () => {
    arrivals.length = 0;
    const schedule = spacedSchedule(['fast', 'held'] as const, { perTarget: 4, seed: 1, meanGapMs: 40, warmUp: 1 });
    expected = schedule.length;
    const results = await spacedArrivals({ fast: `${base}/fast`, held: `${base}/held` }, schedule, (streaming) =>
      streaming ? 'streaming' : 'plain',
    );

    // Every request came while the held ones were unanswered: the sends did not wait for answers. Sends
    // drawn a moment apart go out on different connections and may arrive in either order: compared as sets.
    const sorted = (list: { path: string; streaming: boolean }[]) =>
      list.map((entry) => `${entry.path} ${entry.streaming}`).sort();
    expect(sorted(arrivals)).toEqual(
      sorted(schedule.map((send) => ({ path: `/${send.target}`, streaming: send.streaming }))),
    );
    for (const target of ['fast', 'held'] as const) {
      expect(results[target].streaming).toHaveLength(2);
      expect(results[target].plain).toHaveLength(2);
    }
    // Held answers came at least 30 ms after the last send, so after their own (a lower bound only).
    expect(Math.min(...results.held.streaming, ...results.held.plain)).toBeGreaterThanOrEqual(29);
  });

  it('fails when a target answers with an error', async () => {
    arrivals.length = 0;
    expected = -1;
    const schedule = spacedSchedule(['fail'] as const, { perTarget: 1, seed: 1, meanGapMs: 10, warmUp: 0 });
    await expect(spacedArrivals({ fail: `${base}/fail` }, schedule, () => '{}')).rejects.toThrow(
      /1 spaced requests failed/,
    );
  });
});
