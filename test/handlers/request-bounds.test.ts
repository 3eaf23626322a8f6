/**
 * The edge bounds of a request body (issue 19 item 6) through the handlers, in process, in front of one
 * scripted node serving the model: a body nested thousands deep, an 800 KB model name and a name with a
 * control character are each a 400 in the family's shape naming the field, small, written before any
 * node is chosen — the node is never asked and no trace blames it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { routes as messagesRoutes } from '../../functions/messages';
import { routes as ollamaRoutes } from '../../functions/ollama';
import { routes as openaiRoutes } from '../../functions/openai';
import type { Trace } from '../../lib/core/analytics/trace-record';
import type { Services } from '../../lib/instance';
import { createBufferedHandler, type RouteTable } from '../../lib/services/http/handler';
import { MAX_JSON_DEPTH } from '../../lib/services/http/request-bounds';
import { makeHttpEvent } from '../helpers/events';
import { type ScriptedNodesFixture, startOneNode } from '../helpers/scripted-nodes';

const MODEL = 'llama3.2:3b';
let fixture: ScriptedNodesFixture;
let nodeCalls: string[];
let traces: Trace[];

beforeAll(async () => {
  fixture = await startOneNode('request-bounds', MODEL, (request, response) => {
    nodeCalls.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ model: MODEL, message: { role: 'assistant', content: 'ok' }, done: true }));
  });
});

afterAll(async () => {
  await fixture.close();
});

beforeEach(() => {
  nodeCalls = [];
  traces = [];
  jest.spyOn(fixture.services.traces, 'record').mockImplementation((trace) => {
    traces.push(trace);
  });
});

/** `{"a":{"a":…1…}}`, `depth` objects deep, as text: JSON.stringify itself cannot write it. */
const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** A JSON body with `field` set to raw JSON text. */
const withRaw = (body: object, field: string, raw: string) => `${JSON.stringify(body).slice(0, -1)},"${field}":${raw}}`;

interface Case {
  readonly path: string;
  readonly routes: (services: Services) => RouteTable;
  readonly body: object;
  readonly error: (message: RegExp) => unknown;
}

const user = [{ role: 'user', content: 'hi' }];
const CASES: readonly (readonly [string, Case])[] = [
  [
    '/api/chat',
    {
      path: '/api/chat',
      routes: ollamaRoutes,
      body: { model: MODEL, stream: false, messages: user },
      error: (message) => ({ error: expect.stringMatching(message) }),
    },
  ],
  [
    '/api/pull',
    {
      path: '/api/pull',
      routes: ollamaRoutes,
      body: { model: MODEL, stream: false },
      error: (message) => ({ error: expect.stringMatching(message) }),
    },
  ],
  [
    '/v1/responses',
    {
      path: '/v1/responses',
      routes: openaiRoutes,
      body: { model: MODEL, input: 'hi' },
      error: (message) => ({
        error: {
          message: expect.stringMatching(message),
          type: 'invalid_request_error',
          param: expect.any(String),
          code: 'invalid_request',
        },
      }),
    },
  ],
  [
    '/v1/messages',
    {
      path: '/v1/messages',
      routes: messagesRoutes,
      body: { model: MODEL, max_tokens: 16, messages: user },
      error: (message) => ({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringMatching(message) },
      }),
    },
  ],
];

async function post(route: Case, body: string) {
  return createBufferedHandler(route.routes(fixture.services))(
    makeHttpEvent({ method: 'POST', path: route.path, body }),
  );
}

describe('request bounds at the edge', () => {
  describe.each(CASES)('%s', (_name, route) => {
    it('answers a 5,000-deep value with 400 naming the path, and asks no node', async () => {
      const reply = await post(route, withRaw(route.body, 'options', deep(5000)));

      expect(reply.statusCode).toBe(400);
      expect(JSON.parse(reply.body)).toEqual(
        route.error(new RegExp(`^options(\\.a){${MAX_JSON_DEPTH - 1}}: nested deeper than ${MAX_JSON_DEPTH} levels`)),
      );
      expect(nodeCalls).toEqual([]);
      expect(traces).toEqual([]);
    });

    it('answers an 800 KB model name with a small 400 naming model', async () => {
      const reply = await post(route, JSON.stringify({ ...route.body, model: 'm'.repeat(800_000) }));

      expect(reply.statusCode).toBe(400);
      expect(JSON.parse(reply.body)).toEqual(route.error(/^model: longer than 512 bytes/));
      expect(reply.body.length).toBeLessThan(1000);
      expect(nodeCalls).toEqual([]);
    });

    it('answers a model name with a control character with 400 naming model', async () => {
      const reply = await post(route, JSON.stringify({ ...route.body, model: `${MODEL}\r\nx-evil: 1` }));

      expect(reply.statusCode).toBe(400);
      expect(JSON.parse(reply.body)).toEqual(route.error(/^model: contains the control character U\+000D/));
      expect(nodeCalls).toEqual([]);
    });
  });

  it('repeats at most 120 characters of a long name the client sent in an error', async () => {
    const name = 'f'.repeat(100_000);
    const body = {
      model: MODEL,
      messages: user,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: {} } }],
      tool_choice: { type: 'function', function: { name } },
    };
    const reply = await createBufferedHandler(openaiRoutes(fixture.services))(
      makeHttpEvent({ method: 'POST', path: '/v1/chat/completions', body }),
    );

    expect(reply.statusCode).toBe(400);
    expect(reply.body.length).toBeLessThan(500);
    expect(JSON.parse(reply.body)).toEqual(
      expect.objectContaining({
        error: expect.objectContaining({ message: expect.stringContaining(`${'f'.repeat(120)}… (100000 characters)`) }),
      }),
    );
  });

  it('refuses more fallback models than it would route to, before asking a node', async () => {
    const route = CASES[0]?.[1] as Case;
    const fallbacks = Array.from({ length: 1000 }, (_, index) => `missing-${index}`);
    const reply = await post(route, JSON.stringify({ ...route.body, model: 'missing', fallback_models: fallbacks }));

    expect(reply.statusCode).toBe(400);
    expect(JSON.parse(reply.body)).toEqual({ error: 'fallback_models: more than 32 entries' });
  });

  it('serves a body nested as deep as the bound allows', async () => {
    const route = CASES[0]?.[1] as Case;
    const reply = await post(route, withRaw(route.body, 'options', deep(MAX_JSON_DEPTH - 1)));

    expect(reply.statusCode).toBe(200);
    expect(nodeCalls).toEqual(['/api/chat']);
  });

  it('answers a fallback model name that is not valid UTF-8 with 400 naming the entry', async () => {
    const route = CASES[0]?.[1] as Case;
    const body = Buffer.concat([
      Buffer.from(`{"model":"${MODEL}","stream":false,"messages":[],"fallback_models":["ok","bad`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"]}'),
    ]);
    const reply = await createBufferedHandler(route.routes(fixture.services))(
      makeHttpEvent({ method: 'POST', path: route.path, body }),
    );

    expect(reply.statusCode).toBe(400);
    expect(JSON.parse(reply.body)).toEqual({ error: expect.stringMatching(/^fallback_models\.1: is not valid UTF-8/) });
  });
});
