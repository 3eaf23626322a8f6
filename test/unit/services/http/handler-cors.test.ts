/**
 * CORS in the handler wrapper (spec §4.8): with FLEET_CORS_ORIGINS unset nothing changes; set, every
 * reply (errors included, streams included) carries the headers and OPTIONS is answered before keys.
 * The same through the emulator's HTTP server: test/integration/emulator/cors.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import { BadRequestError, ServiceUnavailableError } from '../../../../lib/core/errors';
import { createBufferedHandler, type HandlerOptions, type RouteTable } from '../../../../lib/services/http/handler';
import { sendJson } from '../../../../lib/services/http/reply';
import { makeHttpEvent } from '../../../helpers/events';

const routes: RouteTable = {
  'GET /api/tags': (_request, response) => sendJson(response, { models: [] }),
  'POST /v1/chat/completions': (_request, response) =>
    sendJson(response, { ok: true }, 200, { 'X-Fleet-Node': 'gpu1', 'x-output-tokens': '3' }),
  'POST /api/chat': async () => {
    throw new BadRequestError('model is required', 'model');
  },
  'POST /v1/messages': async () => {
    throw new ServiceUnavailableError('no node', { retryAfterSeconds: 2 });
  },
  'POST /stream': async (_request, response) => {
    response.start({ statusCode: 200, headers: { 'content-type': 'text/event-stream', 'x-fleet-node': 'gpu2' } });
    await response.write('data: 1\n\n');
    await response.end('data: [DONE]\n\n');
  },
};

const LISTED = 'http://localhost:5173';
const preflight = (path: string, origin = LISTED) =>
  makeHttpEvent({
    method: 'OPTIONS',
    path,
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization,content-type,x-stainless-lang',
    },
  });
const post = (path: string, headers: Record<string, string> = {}) =>
  makeHttpEvent({ method: 'POST', path, headers: { Origin: LISTED, ...headers }, body: {} });

const corsHeaders = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => /^(access-control-|vary$)/i.test(name)));

describe('CORS unset', () => {
  const handler = createBufferedHandler(routes, {});

  it('answers OPTIONS as any method a route does not take, with no CORS header', async () => {
    const reply = await handler(preflight('/v1/chat/completions'));
    expect(reply.statusCode).toBe(405);
    expect(corsHeaders(reply.headers)).toEqual({});
  });

  it('adds nothing to a reply to a browser', async () => {
    const reply = await handler(post('/v1/chat/completions'));
    expect(reply.statusCode).toBe(200);
    expect(corsHeaders(reply.headers)).toEqual({});
  });
});

describe('CORS set', () => {
  const options: HandlerOptions = { corsOrigins: ['http://localhost:*'], apiKeys: ['sk-1'] };
  const handler = createBufferedHandler(routes, options);

  it('answers a preflight 204 before any key check, with the path methods and the requested headers', async () => {
    const reply = await handler(preflight('/v1/chat/completions'));
    expect(reply.statusCode).toBe(204);
    expect(reply.body).toBe('');
    expect(corsHeaders(reply.headers)).toEqual({
      'access-control-allow-origin': LISTED,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'authorization,content-type,x-stainless-lang',
      'access-control-max-age': '7200',
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    });
  });

  it('names GET and HEAD for a GET route, and the table methods for a path with no route', async () => {
    const tags = await handler(preflight('/api/tags'));
    const nowhere = await handler(preflight('/nowhere/at/all'));
    expect(tags.headers['access-control-allow-methods']).toBe('GET, HEAD');
    expect(nowhere.statusCode).toBe(204);
    expect(nowhere.headers['access-control-allow-methods']).toBe('GET, HEAD, POST');
  });

  it('gives a preflight from an unlisted origin no CORS header', async () => {
    const reply = await handler(preflight('/v1/chat/completions', 'https://evil.test'));
    expect(reply.statusCode).toBe(204);
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    expect(reply.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('echoes a listed origin on the reply and exposes the headers clients read', async () => {
    const reply = await handler(post('/v1/chat/completions', { Authorization: 'Bearer sk-1' }));
    expect(reply.statusCode).toBe(200);
    expect(corsHeaders(reply.headers)).toEqual({
      'access-control-allow-origin': LISTED,
      'access-control-expose-headers': 'X-Fleet-Node, x-output-tokens',
      vary: 'Origin',
    });
  });

  it('lets the page read the errors the wrapper renders: keys, bad requests, busy fleet, no route', async () => {
    const unauthorized = await handler(post('/v1/chat/completions'));
    const bad = await handler(post('/api/chat', { Authorization: 'Bearer sk-1' }));
    const busy = await handler(post('/v1/messages', { Authorization: 'Bearer sk-1' }));
    const missing = await handler(post('/v1/nothing', { Authorization: 'Bearer sk-1' }));
    expect([unauthorized.statusCode, bad.statusCode, busy.statusCode, missing.statusCode]).toEqual([
      401, 400, 503, 404,
    ]);
    for (const reply of [unauthorized, bad, busy, missing]) {
      expect(reply.headers['access-control-allow-origin']).toBe(LISTED);
    }
    expect(busy.headers['access-control-expose-headers']).toBe('retry-after');
  });

  it('adds no Allow-Origin for an unlisted origin, only Vary: Origin', async () => {
    const reply = await handler(
      post('/v1/chat/completions', { Origin: 'http://127.0.0.1:5173', Authorization: 'Bearer sk-1' }),
    );
    expect(reply.statusCode).toBe(200);
    expect(corsHeaders(reply.headers)).toEqual({ vary: 'Origin' });
  });

  it('answers * for a bare * list', async () => {
    const any = createBufferedHandler(routes, { corsOrigins: ['*'] });
    const reply = await any(post('/v1/chat/completions', { Origin: 'https://anything.test' }));
    const answer = await any(preflight('/v1/chat/completions', 'https://anything.test'));
    expect(reply.headers['access-control-allow-origin']).toBe('*');
    expect(reply.headers['vary']).toBeUndefined();
    expect(answer.headers['access-control-allow-origin']).toBe('*');
  });
});
