/**
 * The emulator picks a resource as API Gateway does: the most specific path template that matches, and
 * then one of its methods. The catch-all `ANY /{proxy+}` takes the paths no route has, never a method a
 * known path lacks.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EmulatorFunction } from '../../../emulator/routes';
import { createEmulatorServer } from '../../../emulator/server';
import { createBufferedHandler } from '../../../lib/services/http/handler';
import { sendJson } from '../../../lib/services/http/reply';
import { compileRoutePattern } from '../../../lib/services/http/route-pattern';

const fn = (name: string): EmulatorFunction => ({
  name,
  file: `${name}.js`,
  exportName: 'handler',
  timeoutSeconds: 5,
  scheduled: false,
});
const handlers: Record<string, unknown> = {
  chat: createBufferedHandler({ 'POST /api/chat': (_request, response) => sendJson(response, { by: 'chat' }) }),
  rest: createBufferedHandler({}, { corsOrigins: ['http://localhost:*'] }),
};

let server: Server;
let base: string;

beforeAll(async () => {
  const routes = [
    { method: 'POST', pattern: compileRoutePattern('/api/chat'), function: fn('chat') },
    { method: 'OPTIONS', pattern: compileRoutePattern('/api/chat'), function: fn('chat') },
    { method: 'ANY', pattern: compileRoutePattern('/{proxy+}'), function: fn('rest') },
  ];
  server = createEmulatorServer({
    table: { routes, functions: [fn('chat'), fn('rest')], binaryMediaTypes: [] },
    loadHandler: (target) => handlers[target.name],
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('emulator route matching', () => {
  it('answers 405 for a method a known path lacks, not the catch-all', async () => {
    const response = await fetch(`${base}/api/chat`);
    expect(response.status).toBe(405);
    await response.text();
  });

  it('sends a path no route has to the catch-all, whose wrapper answers 404 or the preflight', async () => {
    const missing = await fetch(`${base}/api/nothing`);
    const preflight = await fetch(`${base}/api/nothing`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:3000', 'Access-Control-Request-Method': 'POST' },
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'no route for GET /api/nothing' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });
});
