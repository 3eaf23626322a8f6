import { createHash } from 'node:crypto';
import { describe, expect, it, jest } from '@jest/globals';
import {
  createKeyring,
  credentialWarnings,
  identifyCaller,
  matchesKey,
  pageRole,
  unsaidWarnings,
} from '../../../../lib/services/http/api-keys';
import {
  createBufferedHandler,
  nodeRoute,
  operatorRoute,
  type RouteTable,
} from '../../../../lib/services/http/handler';
import { sendJson, sendText } from '../../../../lib/services/http/reply';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { makeHttpEvent } from '../../../helpers/events';

const routes: RouteTable = {
  'GET /': (_request, response) => sendText(response, 'Ollama is running'),
  'GET /api/tags': (_request, response) => sendJson(response, { models: [] }),
  'POST /v1/messages': (_request, response) => sendJson(response, { ok: true }),
  'POST /heartbeat': nodeRoute((_request, response) => sendJson(response, { status: 'ok' })),
  'DELETE /api/delete': operatorRoute((request, response) => sendJson(response, { caller: request.caller })),
  'GET /api/ps': (request, response) => sendJson(response, { caller: request.caller }),
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
    const said = log.mock.calls.map(([line]) => String(line));
    expect(said.filter((line) => line.includes('FLEET_NODE_KEYS is not'))).toHaveLength(1);
    log.mockRestore();
  });

  it('leaves client routes open when only node keys are set', async () => {
    const nodeOnly = createBufferedHandler(routes, { nodeKeys: ['node-key'] });

    expect((await nodeOnly(post('/v1/messages'))).statusCode).toBe(200);
    expect((await nodeOnly(post('/heartbeat'))).statusCode).toBe(401);
    expect((await nodeOnly(post('/heartbeat', 'node-key'))).statusCode).toBe(200);
  });

  it('warns the operator only when client keys shut node agents out', () => {
    const about = (lists: Parameters<typeof credentialWarnings>[0]) =>
      credentialWarnings(lists).filter((warning) => warning.concerns === 'heartbeats');
    expect(about({ apiKeys: ['c'] })).toEqual([
      { concerns: 'heartbeats', message: expect.stringContaining('FLEET_NODE_KEYS') },
    ]);
    expect(about({ apiKeys: ['c'], nodeKeys: ['n'] })).toEqual([]);
    expect(about({})).toEqual([]);
    expect(about({ nodeKeys: ['n'] })).toEqual([]);
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

describe('operator keys', () => {
  const handler = createBufferedHandler(routes, {
    apiKeys: ['app:client-key'],
    adminKeys: ['operator-key'],
    nodeKeys: ['node-key'],
  });
  const call = (method: string, path: string, key?: string) =>
    handler(makeHttpEvent({ method, path, body: {}, headers: key === undefined ? {} : { 'x-api-key': key } }));

  it('opens a change to an operator key only: a client key gets 403, no key or a node key 401', async () => {
    const operator = await call('DELETE', '/api/delete', 'operator-key');
    const client = await call('DELETE', '/api/delete', 'client-key');

    expect(operator.statusCode).toBe(200);
    expect(client.statusCode).toBe(403);
    expect(JSON.parse(client.body)).toEqual({
      error: expect.stringContaining('needs an operator key (FLEET_ADMIN_KEYS)'),
    });
    expect((await call('DELETE', '/api/delete')).statusCode).toBe(401);
    expect((await call('DELETE', '/api/delete', 'node-key')).statusCode).toBe(401);
  });

  it('lets an operator key do what a client key does, and hands the route who called, by id', async () => {
    const operator = await call('GET', '/api/ps', 'operator-key');
    const client = await call('GET', '/api/ps', 'client-key');

    expect(JSON.parse(operator.body)).toEqual({
      caller: { role: 'operator', keyId: digest('operator-key').toString('hex').slice(0, 8) },
    });
    expect(JSON.parse(client.body)).toEqual({ caller: { role: 'client', keyId: 'app' } });
  });

  it('refuses every change to every key when client keys are set and operator keys are not, naming FLEET_ADMIN_KEYS', async () => {
    const log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const clientOnly = createBufferedHandler(routes, { apiKeys: ['client-key'], nodeKeys: ['node-key'] });

    const reply = await clientOnly(
      makeHttpEvent({ method: 'DELETE', path: '/api/delete', body: {}, headers: { 'x-api-key': 'client-key' } }),
    );

    expect(reply.statusCode).toBe(403);
    expect(reply.body).toContain('this router has none configured (FLEET_ADMIN_KEYS)');
    log.mockRestore();
  });

  it('leaves clients open and closes only the changes when operator keys alone are set', async () => {
    const adminOnly = createBufferedHandler(routes, { adminKeys: ['operator-key'] });
    const send = (method: string, path: string, headers: Record<string, string> = {}) =>
      adminOnly(makeHttpEvent({ method, path, body: {}, headers }));

    expect((await send('GET', '/api/ps')).statusCode).toBe(200);
    expect((await send('DELETE', '/api/delete')).statusCode).toBe(401);
    expect((await send('DELETE', '/api/delete', { 'x-api-key': 'anything' })).statusCode).toBe(401);
    expect((await send('DELETE', '/api/delete', { 'x-api-key': 'operator-key' })).statusCode).toBe(200);
    // Heartbeats stay as an open router has them: no client keys, no node keys.
    expect((await send('POST', '/heartbeat')).statusCode).toBe(200);
  });

  it('is open, changes included, with no keys at all', async () => {
    const open = createBufferedHandler(routes, {});

    expect((await open(makeHttpEvent({ method: 'DELETE', path: '/api/delete', body: {} }))).statusCode).toBe(200);
  });

  it('warns once, at start, when client keys are set and operator keys are not', () => {
    const changes = (lists: Parameters<typeof credentialWarnings>[0]) =>
      credentialWarnings(lists).filter((warning) => warning.concerns === 'changes');

    expect(changes({ apiKeys: ['c'], nodeKeys: ['n'] })).toEqual([
      { concerns: 'changes', message: expect.stringContaining('FLEET_ADMIN_KEYS is not') },
    ]);
    expect(changes({ apiKeys: ['c'], adminKeys: ['o'] })).toEqual([]);
    expect(changes({ adminKeys: ['o'] })).toEqual([]);
    expect(changes({})).toEqual([]);
    const warning = { concerns: 'changes' as const, message: 'said once per process' };
    expect(unsaidWarnings([warning])).toEqual([warning]);
    expect(unsaidWarnings([warning])).toEqual([]);
  });
});

describe('identifyCaller', () => {
  const ring = createKeyring({ apiKeys: ['team-a:sk-a', 'sk-b'], adminKeys: ['ops:sk-o'], nodeKeys: ['nk'] });
  const from = (key?: string) =>
    identifyCaller(
      ring,
      toHttpRequest(
        makeHttpEvent({ path: '/api/tags', headers: key === undefined ? {} : { authorization: `Bearer ${key}` } }),
      ),
    );

  it('names the list a key is in, with its id: the name given, else a short digest, never the key', () => {
    expect(from('sk-a')).toEqual({ role: 'client', keyId: 'team-a' });
    expect(from('sk-b')).toEqual({ role: 'client', keyId: digest('sk-b').toString('hex').slice(0, 8) });
    expect(from('sk-o')).toEqual({ role: 'operator', keyId: 'ops' });
    expect(from('nk')).toEqual({ role: 'node', keyId: undefined });
  });

  it('finds no one for no key, an unknown key, or a named entry sent whole', () => {
    expect(from()).toEqual({ role: 'none', keyId: undefined });
    expect(from('sk-unknown')).toEqual({ role: 'none', keyId: undefined });
    expect(from('team-a:sk-a')).toEqual({ role: 'none', keyId: undefined });
  });
});

describe('pageRole', () => {
  it('is open with no client or operator keys, operator for an operator key, client otherwise', () => {
    expect(pageRole({}, { role: 'none', keyId: undefined })).toBe('open');
    expect(pageRole({ nodeKeys: ['n'] }, { role: 'none', keyId: undefined })).toBe('open');
    expect(pageRole({ apiKeys: ['c'], adminKeys: ['o'] }, { role: 'operator', keyId: 'x' })).toBe('operator');
    expect(pageRole({ apiKeys: ['c'], adminKeys: ['o'] }, { role: 'client', keyId: 'y' })).toBe('client');
    expect(pageRole({ adminKeys: ['o'] }, { role: 'none', keyId: undefined })).toBe('client');
  });
});
