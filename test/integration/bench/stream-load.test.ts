import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { streamLoad } from '../../../bench/stream-load';

/** Streams three NDJSON chunks 20 ms apart; a body naming `broken` gets a 500, `short` loses its second chunk. */
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      if (body.includes('broken')) {
        response.writeHead(500).end('{}');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const numbers = body.includes('short') ? [1, 3] : [1, 2, 3];
      // Each chunk schedules the next: timers of different lengths set by several requests may fire out of
      // order on a busy host, and a chunk must never come after the end.
      const send = (index: number) => {
        response.write(`{"message":{"content":"token${numbers[index]} "}}\n`);
        if (index === numbers.length - 1) response.end('{"done":true}\n');
        else setTimeout(() => send(index + 1), 20);
      };
      send(0);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('streamLoad', () => {
  it('runs the streams at once, spread over the time given, each with its first byte and its chunks', async () => {
    const called = performance.now();
    const records = await streamLoad(url, '{}', 10, 30);

    expect(records).toHaveLength(10);
    for (const [index, record] of records.entries()) {
      // Stream i is sent no sooner than i tenths of the 30 ms (a lower bound: a busy host only delays it).
      const sent = (record.arrivals[0] ?? 0) - record.firstChunkMs;
      expect(sent - called).toBeGreaterThanOrEqual(index * 3 - 1);
      expect(record.status).toBe(200);
      expect(record.error).toBeUndefined();
      expect(record.arrivals).toHaveLength(3);
      expect(record.firstByteMs).toBeGreaterThan(0);
      expect(record.firstChunkMs).toBeGreaterThanOrEqual(record.firstByteMs);
      // Stamped one by one as they come, in order (no gap asserted: a loaded host may deliver them together).
      expect([...record.arrivals].sort((a, b) => a - b)).toEqual(record.arrivals);
      expect(record.arrivals[0] ?? 0).toBeGreaterThanOrEqual(record.firstChunkMs);
    }
  });

  it('says when a stream failed or lost a chunk', async () => {
    const [broken] = await streamLoad(url, '{"broken":true}', 1, 0);
    const [short] = await streamLoad(url, '{"short":true}', 1, 0);

    expect(broken?.error).toBe('status 500');
    expect(short?.error).toBeUndefined();
    expect(short?.arrivals).toHaveLength(2);
    expect(short?.outOfOrder).toBe(1);
  });
});
