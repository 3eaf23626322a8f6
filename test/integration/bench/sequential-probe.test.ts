import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { interleavedSequentialMicros } from '../../../bench/sequential-probe';

/** Every request any of the servers answered, by server name, in the order they came. */
const arrivals: string[] = [];
const servers: Server[] = [];
const urls = new Map<string, string>();

async function serve(name: string): Promise<void> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      arrivals.push(name);
      response.end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  urls.set(name, `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat`);
}

beforeAll(async () => {
  await serve('a');
  await serve('b');
  await serve('c');
});

afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('interleavedSequentialMicros', () => {
  it('gives each target its count in turns of a block, the first turn rotating, after 200 each uncounted', async () => {
    arrivals.length = 0;
    const targets = ['a', 'b', 'c'].map((name) => [name, urls.get(name) ?? ''] as const);
    const medians = await interleavedSequentialMicros(targets, 5, '{}', 2);

    expect(arrivals.slice(0, 600)).toEqual([...Array(200).fill('a'), ...Array(200).fill('b'), ...Array(200).fill('c')]);
    // Turns of 2 (the last one shorter), each turn starting one target later than the one before.
    expect(arrivals.slice(600).join('')).toBe('aabbcc' + 'bbccaa' + 'cab');
    expect([...medians.keys()]).toEqual(['a', 'b', 'c']);
    for (const value of medians.values()) expect(value).toBeGreaterThan(0);
  });
});
