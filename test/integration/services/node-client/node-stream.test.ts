import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type SimNode, startSimNode } from '../../../../emulator/sim';
import { UpstreamError } from '../../../../lib/core/errors';
import { openNodeStream, readNodeBody } from '../../../../lib/services/node-client/node-stream';

let node: SimNode;

beforeAll(async () => {
  node = await startSimNode({ ttftMs: 5, tokensPerSecond: 200 });
});

afterAll(async () => {
  await node.close();
});

const chat = { model: 'llama3.2:3b', messages: [{ role: 'user', content: 'hello there' }] };

describe('openNodeStream', () => {
  it('resolves at the headers and hands over the body as it streams', async () => {
    const reply = await openNodeStream(node.url, '/api/chat', chat);
    const lines = (await readNodeBody(reply)).toString().trim().split('\n');

    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toContain('application/x-ndjson');
    expect(lines.length).toBeGreaterThan(2);
    expect(JSON.parse(lines.at(-1) ?? '{}').done).toBe(true);
  });

  it('keeps the path prefix of a node behind a reverse proxy', async () => {
    const seen: string[] = [];
    const proxy = createServer((request, response) => {
      seen.push(request.url ?? '');
      const upstream = httpRequest(`${node.url}${(request.url ?? '').replace(/^\/ollama/, '')}`, {
        method: request.method ?? 'POST',
        headers: request.headers,
      });
      upstream.on('response', (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      request.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/ollama`;
      const reply = await openNodeStream(base, '/api/chat', chat);
      await readNodeBody(reply);

      expect(reply.status).toBe(200);
      expect(seen).toEqual(['/ollama/api/chat']);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('passes a node error status through for the caller to judge', async () => {
    node.faults.failNext(1, 503);

    const reply = await openNodeStream(node.url, '/api/chat', chat);

    expect(reply.status).toBe(503);
    expect(JSON.parse((await readNodeBody(reply)).toString())).toEqual({ error: 'simulated failure' });
  });

  it('rejects with an UpstreamError when the node refuses connections', async () => {
    await node.faults.refuseConnections(true);
    await expect(openNodeStream(node.url, '/api/chat', chat)).rejects.toBeInstanceOf(UpstreamError);
    await node.faults.refuseConnections(false);
  });

  it('rejects with an UpstreamError, not a throw, for a node URL that does not parse', async () => {
    const opened = openNodeStream('not a url', '/api/chat', chat);
    await expect(opened).rejects.toBeInstanceOf(UpstreamError);
  });

  it('rejects when the node does not answer within the first-byte time-out', async () => {
    node.faults.hang(true);
    await expect(openNodeStream(node.url, '/api/chat', chat, { firstByteTimeoutMs: 200 })).rejects.toBeInstanceOf(
      UpstreamError,
    );
    node.faults.hang(false);
  });

  it('stops the node streaming when cancelled', async () => {
    const long = { ...chat, messages: [{ role: 'user', content: 'hello there, in 500 words' }] };
    const reply = await openNodeStream(node.url, '/api/chat', long);
    const iterator = reply.body[Symbol.asyncIterator]();
    await iterator.next();

    reply.cancel();
    reply.cancel();

    // The body ends or errors at once: either way nothing more comes from the node.
    const next = await iterator.next().then(
      (result) => (result.done === true ? 'ended' : 'more'),
      (error: unknown) => (error instanceof Error ? error.name : 'error'),
    );
    expect(['ended', 'AbortError']).toContain(next);
  });
});

describe('a node that does not answer', () => {
  it('fails after the first-byte wait with words and no URL, the URL kept for the log', async () => {
    node.faults.hang(true);
    try {
      const error = await openNodeStream(node.url, '/api/chat', chat, { firstByteTimeoutMs: 300 }).catch(
        (caught: unknown) => caught,
      );

      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as UpstreamError).message).toBe('the node did not answer within 0.3 s');
      expect((error as UpstreamError).detail).toContain(`${node.url}/api/chat`);
    } finally {
      await node.faults.reset();
    }
  });
});
