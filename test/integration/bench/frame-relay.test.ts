import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { startFrameRelay } from '../../../bench/frame-relay';

/** What the stand-in node got, and what it answers next. */
const received: { path: string; body: string }[] = [];
let answer = { status: 200, type: 'application/json; charset=utf-8', body: '{"done":true}' };
let node: Server;
let relay: Server;
let relayUrl: string;

beforeAll(async () => {
  node = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(answer.status, { 'content-type': answer.type });
      response.end(answer.body);
    });
  });
  node.listen(0, '127.0.0.1');
  await once(node, 'listening');
  const started = await startFrameRelay(`http://127.0.0.1:${(node.address() as AddressInfo).port}`);
  relay = started.server;
  relayUrl = started.url;
});

afterAll(async () => {
  for (const server of [relay, node]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

beforeEach(() => {
  received.length = 0;
});

const chat = (body: unknown) =>
  fetch(`${relayUrl}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('the frame relay', () => {
  it("posts the client's body to the node's /api/chat and answers with the node's status, type and body", async () => {
    answer = { status: 200, type: 'application/json; charset=utf-8', body: '{"message":{"content":"hi"},"done":true}' };
    const body = { model: 'bench:1b', messages: [{ role: 'user', content: 'benchmark' }], stream: false };
    const response = await chat(body);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.text()).toBe(answer.body);
    expect(received).toEqual([{ path: '/api/chat', body: JSON.stringify(body) }]);
  });

  it("hands a node's refusal back as it came", async () => {
    answer = { status: 404, type: 'application/json', body: '{"error":"model \\"nope\\" not found"}' };
    const response = await chat({ model: 'nope', messages: [] });
    expect(response.status).toBe(404);
    expect(await response.text()).toBe(answer.body);
  });

  it('refuses a body without a model in the Ollama shape, before the node hears of it', async () => {
    const response = await chat({ messages: [] });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'model is required' });
    expect(received).toEqual([]);
  });
});
