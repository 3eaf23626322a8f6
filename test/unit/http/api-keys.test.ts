import { describe, expect, it } from '@jest/globals';
import { createBufferedHandler, type RouteTable } from '../../../lib/http/handler';
import { sendJson, sendText } from '../../../lib/http/reply';
import { makeHttpEvent } from '../../helpers/events';

const routes: RouteTable = {
  'GET /': (_request, response) => sendText(response, 'Ollama is running'),
  'GET /api/tags': (_request, response) => sendJson(response, { models: [] }),
  'POST /v1/messages': (_request, response) => sendJson(response, { ok: true }),
};

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
