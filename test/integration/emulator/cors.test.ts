/**
 * CORS through the emulator's real HTTP server, the streaming host (spec §4.8): a stream carries the
 * headers before its first byte, an error rendered before one carries them too, and a preflight is
 * answered with the allowed method. The wrapper's own CORS answers, on events, are unit tests
 * (test/unit/services/http/handler-cors.test.ts).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { installAwsLambdaGlobal } from '../../../emulator/lambda-runtime';
import type { EmulatorFunction } from '../../../emulator/routes';
import { createEmulatorServer } from '../../../emulator/server';
import { BadRequestError } from '../../../lib/core/errors';
import { createHandler, type RouteTable } from '../../../lib/services/http/handler';
import { compileRoutePattern } from '../../../lib/services/http/route-pattern';

const routes: RouteTable = {
  'POST /api/chat': async () => {
    throw new BadRequestError('model is required', 'model');
  },
  'POST /stream': async (_request, response) => {
    response.start({ statusCode: 200, headers: { 'content-type': 'text/event-stream', 'x-fleet-node': 'gpu2' } });
    await response.write('data: 1\n\n');
    await response.end('data: [DONE]\n\n');
  },
};

const LISTED = 'http://localhost:5173';

describe('CORS on the streaming host (the emulator and AWS)', () => {
  let server: Server;
  let base: string;
  const fn: EmulatorFunction = {
    name: 'main',
    file: 'main.js',
    exportName: 'handler',
    timeoutSeconds: 5,
    scheduled: false,
  };

  beforeAll(async () => {
    installAwsLambdaGlobal();
    const handler = createHandler(routes, { corsOrigins: ['http://localhost:*'] });
    const table = {
      routes: ['POST /stream', 'OPTIONS /stream', 'POST /api/chat'].map((key) => {
        const [method, path] = key.split(' ') as [string, string];
        return { method, pattern: compileRoutePattern(path), function: fn };
      }),
      functions: [fn],
      binaryMediaTypes: [],
    };
    server = createEmulatorServer({ table, loadHandler: () => handler });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends the CORS headers with a stream, before its first byte, and with an error rendered before one', async () => {
    const stream = await fetch(`${base}/stream`, { method: 'POST', headers: { Origin: LISTED } });
    const failed = await fetch(`${base}/api/chat`, { method: 'POST', headers: { Origin: LISTED } });
    const answer = await fetch(`${base}/stream`, {
      method: 'OPTIONS',
      headers: { Origin: LISTED, 'Access-Control-Request-Method': 'POST' },
    });
    expect(stream.headers.get('access-control-allow-origin')).toBe(LISTED);
    expect(stream.headers.get('access-control-expose-headers')).toBe('x-fleet-node');
    expect(await stream.text()).toBe('data: 1\n\ndata: [DONE]\n\n');
    expect(failed.status).toBe(400);
    expect(failed.headers.get('access-control-allow-origin')).toBe(LISTED);
    await failed.text();
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-methods')).toBe('POST');
  });
});
