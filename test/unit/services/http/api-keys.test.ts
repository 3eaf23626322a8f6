import { createHash } from 'node:crypto';
import { describe, expect, it, jest } from '@jest/globals';
import { credentialWarnings, matchesKey } from '../../../../lib/services/http/api-keys';
import { createBufferedHandler, nodeRoute, type RouteTable } from '../../../../lib/services/http/handler';
import { sendJson, sendText } from '../../../../lib/services/http/reply';
import { makeHttpEvent } from '../../../helpers/events';

const routes: RouteTable = {
  'GET /': (_request, response) => sendText(response, 'Ollama is running'),
  'GET /api/tags': (_request, response) => sendJson(response, { models: [] }),
  'POST /v1/messages': (_request, response) => sendJson(response, { ok: true }),
  'POST /heartbeat': nodeRoute((_request, response) => sendJson(response, { status: 'ok' })),
};

const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest();

describe('matchesKey', () => {
  const keys = ['short', 'a-much-longer-key-of-forty-characters-00'].map(digest);

  it('finds a key whatever its length', () => {
    expect(matchesKey('short', keys)).toBe(true);
    expect(matchesKey('a-much-longer-key-of-forty-characters-00', keys)).toBe(true);
  });

  it('refuses a wrong key of the same length as a configured one', () => {
    expect(matchesKey('shorT', keys)).toBe(false);
    expect(matchesKey('a-much-longer-key-of-forty-characters-01', keys)).toBe(false);
  });

  it('refuses keys of other lengths, a prefix and an extension, without throwing', () => {
    expect(matchesKey('', keys)).toBe(false);
    expect(matchesKey('shor', keys)).toBe(false);
    expect(matchesKey('shorter', keys)).toBe(false);
    expect(matchesKey('x'.repeat(10_000), keys)).toBe(false);
  });

  it('finds a key that is not the first configured', () => {
    expect(matchesKey('third', ['one', 'two', 'third'].map(digest))).toBe(true);
  });
});

describe('node keys', () => {
  const both = createBufferedHandler(routes, { apiKeys: ['client-key'], nodeKeys: ['node-key'] });
  const post = (path: string, key?: string) =>
    makeHttpEvent({
      method: 'POST',
      path,
      body: {},
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
    });

  it('opens node routes to node keys only', async () => {
    expect((await both(post('/heartbeat', 'node-key'))).statusCode).toBe(200);
    expect((await both(post('/heartbeat', 'client-key'))).statusCode).toBe(401);
    expect((await both(post('/heartbeat'))).statusCode).toBe(401);
  });

  it('never opens a client route to a node key', async () => {
    expect((await both(post('/v1/messages', 'node-key'))).statusCode).toBe(401);
    expect((await both(post('/v1/messages', 'client-key'))).statusCode).toBe(200);
  });

  it('closes node routes to everyone when only client keys are set, and says so once', async () => {
    const log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const clientOnly = createBufferedHandler(routes, { apiKeys: ['client-key'] });

    const reply = await clientOnly(post('/heartbeat', 'client-key'));
    await clientOnly(post('/heartbeat', 'client-key'));

    expect(reply.statusCode).toBe(401);
    expect(reply.body).toContain('FLEET_NODE_KEYS');
    expect(log).toHaveBeenCalledTimes(1);
    log.mockRestore();
  });

  it('leaves client routes open when only node keys are set', async () => {
    const nodeOnly = createBufferedHandler(routes, { nodeKeys: ['node-key'] });

    expect((await nodeOnly(post('/v1/messages'))).statusCode).toBe(200);
    expect((await nodeOnly(post('/heartbeat'))).statusCode).toBe(401);
    expect((await nodeOnly(post('/heartbeat', 'node-key'))).statusCode).toBe(200);
  });

  it('warns the operator only when client keys shut node agents out', () => {
    expect(credentialWarnings({ apiKeys: ['c'] })).toEqual([expect.stringContaining('FLEET_NODE_KEYS')]);
    expect(credentialWarnings({ apiKeys: ['c'], nodeKeys: ['n'] })).toEqual([]);
    expect(credentialWarnings({})).toEqual([]);
    expect(credentialWarnings({ nodeKeys: ['n'] })).toEqual([]);
  });
});

describe('API keys', () => {
  const handler = createBufferedHandler(routes, { apiKeys: ['key-one', 'key-two'] });

  it('lets the liveness probe through without a key', async () => {
    expect((await handler(makeHttpEvent({ path: '/' }))).statusCode).toBe(200);
    expect((await handler(makeHttpEvent({ method: 'HEAD', path: '/' }))).statusCode).toBe(200);
  });

  it('refuses a request without a key with 401 in the family shape', async () => {
    const reply = await handler(makeHttpEvent({ path: '/api/tags' }));

    expect(reply.statusCode).toBe(401);
    expect(JSON.parse(reply.body)).toEqual({ error: 'an API key is required' });
  });

  it('refuses a wrong key', async () => {
    const reply = await handler(
      makeHttpEvent({ method: 'POST', path: '/v1/messages', body: {}, headers: { 'x-api-key': 'key-thre' } }),
    );

    expect(reply.statusCode).toBe(401);
    expect(JSON.parse(reply.body)).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'the API key is not valid' },
    });
  });

  it.each([
    ['Authorization: Bearer', { Authorization: 'Bearer key-two' }],
    ['lower-case bearer', { authorization: 'bearer key-one' }],
    ['x-api-key', { 'X-Api-Key': 'key-one' }],
  ])('accepts a key sent as %s', async (_name, headers) => {
    expect((await handler(makeHttpEvent({ path: '/api/tags', headers }))).statusCode).toBe(200);
  });

  it('is open when no keys are configured', async () => {
    const open = createBufferedHandler(routes, { apiKeys: [] });

    expect((await open(makeHttpEvent({ path: '/api/tags' }))).statusCode).toBe(200);
  });
});
