/**
 * Header values through the emulator's real HTTP server (issue 19 item 6): a model a node names with
 * characters no header can carry — outside Latin-1 — made Node throw ERR_INVALID_CHAR while writing
 * X-Fleet-Model, after the node did the work, and the client got a 502 in no family's shape. The
 * routed reply now arrives with the name percent-encoded.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { installAwsLambdaGlobal } from '../../../emulator/lambda-runtime';
import type { EmulatorFunction } from '../../../emulator/routes';
import { createEmulatorServer } from '../../../emulator/server';
import { routes } from '../../../functions/ollama';
import { createHandler } from '../../../lib/services/http/handler';
import { compileRoutePattern } from '../../../lib/services/http/route-pattern';
import { type ScriptedNodesFixture, startOneNode } from '../../helpers/scripted-nodes';

const MODEL = '模型-ünï:7b';
let fixture: ScriptedNodesFixture;
let server: Server;
let base: string;

beforeAll(async () => {
  fixture = await startOneNode('header-values', MODEL, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ model: MODEL, message: { role: 'assistant', content: 'ok' }, done: true }));
  });
  installAwsLambdaGlobal();
  const handler = createHandler(routes(fixture.services)) as (
    event: unknown,
    stream: Writable,
    context: unknown,
  ) => Promise<void>;
  const fn: EmulatorFunction = {
    name: 'ollama',
    file: 'ollama.js',
    exportName: 'handler',
    timeoutSeconds: 10,
    scheduled: false,
  };
  server = createEmulatorServer({
    table: {
      binaryMediaTypes: [],
      functions: [fn],
      routes: [{ method: 'POST', pattern: compileRoutePattern('/api/chat'), function: fn }],
    },
    loadHandler: () => handler,
    log: () => undefined,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await fixture.close();
});

describe('header values of a routed reply', () => {
  it('carries a model name outside Latin-1 percent-encoded, and the reply arrives', async () => {
    const response = await fetch(`${base}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, stream: false, messages: [{ role: 'user', content: 'hi' }] }),
    });

    expect(response.status).toBe(200);
    expect(decodeURIComponent(response.headers.get('x-fleet-model') ?? '')).toBe(MODEL);
    expect(await response.json()).toEqual(expect.objectContaining({ done: true }));
  });
});
