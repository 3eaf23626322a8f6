import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pollNode } from '../../../../lib/services/registry/poller';
import { T0 } from '../../../helpers/factories';

/** A node that takes the connection and drops it before answering, as a crashing Ollama does. */
let resetting: Server;
let resettingUrl: string;
/** A node whose `/api/ps` answers something that is not Ollama's shape. */
let garbled: Server;
let garbledUrl: string;

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  resetting = createServer((request) => request.socket.destroy());
  resettingUrl = await listen(resetting);
  garbled = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(request.url === '/api/ps' ? '{"models":"none"}' : '{"models":[]}');
  });
  garbledUrl = await listen(garbled);
});

afterAll(async () => {
  await Promise.all([resetting, garbled].map((server) => new Promise((resolve) => server.close(resolve))));
});

const options = { now: () => T0, describe: async () => new Map(), timeoutMs: 2000 };

describe('pollNode', () => {
  it('records a dropped connection with its URL for the operator and in words for clients', async () => {
    const record = await pollNode({ id: 'gpu1', url: resettingUrl }, undefined, options);

    expect(record.lastErrorAt).toBe(T0);
    expect(record.lastError).toContain(resettingUrl);
    expect(record.lastErrorWords).toBe('closed the connection');
  });

  it('says a reply it could not read without the field or the URL', async () => {
    const record = await pollNode({ id: 'gpu1', url: garbledUrl }, undefined, options);

    expect(record.lastError).toContain('/api/ps');
    expect(record.lastErrorWords).toBe('sent a reply the router could not read');
  });
});
