/**
 * Operator keys under `npx serverless offline` (issue 46), the second host: the same handlers buffered,
 * with client and operator keys from the shell. A settings write and a delete answer a client key 403 in
 * their families' shapes and run for an operator key; `GET /dashboard/api/whoami` tells each key its role.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type OfflineProcess, startOffline } from './serverless-offline-process';

const CLIENT_KEY = 'sk-offline-client';
const OPERATOR_KEY = 'sk-offline-operator';
let offline: OfflineProcess;

beforeAll(async () => {
  offline = await startOffline({
    env: {
      FLEET_DATA_DIR: ':memory:',
      FLEET_API_KEYS: CLIENT_KEY,
      FLEET_ADMIN_KEYS: OPERATOR_KEY,
      FLEET_NODE_KEYS: 'nk-offline',
    },
  });
}, 150_000);

afterAll(async () => {
  await offline?.stop();
});

function send(method: string, path: string, key: string, body?: unknown): Promise<Response> {
  return fetch(`${offline.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('serverless offline with operator keys', () => {
  it('answers a client key 403 on a settings write and a delete, and runs them for an operator key', async () => {
    const settings = await send('POST', '/dashboard/api/settings', CLIENT_KEY, { transcription: true });
    const removal = await send('DELETE', '/api/delete', CLIENT_KEY, { model: 'nowhere:1b' });
    const operatorSettings = await send('POST', '/dashboard/api/settings', OPERATOR_KEY, { transcription: true });
    const operatorRemoval = await send('DELETE', '/api/delete', OPERATOR_KEY, { model: 'nowhere:1b' });

    expect(settings.status).toBe(403);
    expect(await settings.json()).toEqual({
      error: expect.objectContaining({ type: 'permission_error', code: 'operator_key_required' }),
    });
    expect(removal.status).toBe(403);
    expect(await removal.json()).toEqual({ error: expect.stringContaining('needs an operator key') });
    expect(operatorSettings.status).toBe(200);
    expect(((await operatorSettings.json()) as { transcription: boolean }).transcription).toBe(true);
    expect(operatorRemoval.status).toBe(404);
  });

  it('tells each key its role', async () => {
    const client = await send('GET', '/dashboard/api/whoami', CLIENT_KEY);
    const operator = await send('GET', '/dashboard/api/whoami', OPERATOR_KEY);

    expect([await client.json(), await operator.json()]).toEqual([{ role: 'client' }, { role: 'operator' }]);
  });
});
