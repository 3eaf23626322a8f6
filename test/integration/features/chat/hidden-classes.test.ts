/**
 * The objects the chat path builds for every request — the trace and the reply's headers — keep one
 * hidden class from request to request. An object literal that starts with a spread and then adds a
 * property makes V8 build a fresh hidden class for each object (see lib/core/merged.ts):
 * several per request, in old space, and every read of those objects goes megamorphic. That cost no
 * functional test sees, so this one asks V8 directly (`%HaveSameMap`), after enough requests for the
 * inline caches to settle.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { serveOllamaChat } from '../../../../lib/features/chat/ollama-chat';
import { serveOpenAIChat } from '../../../../lib/features/chat/openai-chat';
import { getServices, type Services } from '../../../../lib/instance';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { createBufferedSink, type ResponseMeta, type ResponseSink } from '../../../../lib/services/http/response-sink';
import { makeHttpEvent } from '../../../helpers/events';
import { haveSameMap } from '../../../helpers/hidden-class';
import { type ScriptedNodesFixture, startOneNode } from '../../../helpers/scripted-nodes';
import { withServices } from '../../../helpers/with-services';

const MODEL = 'llama3.2:3b';
const REQUESTS = 40;

let fixture: ScriptedNodesFixture;
let services: Services;

const lastLine = (done: boolean) =>
  JSON.stringify({
    model: MODEL,
    created_at: new Date().toISOString(),
    message: { role: 'assistant', content: done ? '' : 'hello' },
    done,
    ...(done ? { done_reason: 'stop', total_duration: 1000, prompt_eval_count: 5, eval_count: 7 } : {}),
  });

beforeAll(async () => {
  fixture = await startOneNode('hidden-classes', MODEL, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/x-ndjson' });
    response.end(`${lastLine(false)}\n${lastLine(true)}\n`);
  });
  services = fixture.services;
});

afterAll(async () => {
  await fixture.close();
});

type Route = (request: ReturnType<typeof toHttpRequest>, response: ResponseSink) => Promise<void>;

/** Serves `REQUESTS` identical requests; gives back each one's trace and reply headers. */
async function serveMany(route: Route, path: string, body: object) {
  const traces: Trace[] = [];
  const headers: object[] = [];
  const record = jest.spyOn(services.traces, 'record').mockImplementation((trace) => {
    traces.push(trace);
  });
  try {
    for (let index = 0; index < REQUESTS; index += 1) {
      const { sink } = createBufferedSink();
      const start = sink.start.bind(sink);
      sink.start = (meta: ResponseMeta) => {
        if (meta.headers !== undefined) headers.push(meta.headers);
        start(meta);
      };
      await route(toHttpRequest(makeHttpEvent({ method: 'POST', path, body })), sink);
    }
  } finally {
    record.mockRestore();
  }
  return { traces, headers };
}

const cases: [string, Route, string, object][] = [
  [
    'ollama chat',
    (request, sink) => serveOllamaChat(getServices(), request, sink, 'chat'),
    '/api/chat',
    { stream: false },
  ],
  ['ollama chat, streaming', (request, sink) => serveOllamaChat(getServices(), request, sink, 'chat'), '/api/chat', {}],
  ['openai chat', withServices(serveOpenAIChat), '/v1/chat/completions', {}],
  ['openai chat, streaming', withServices(serveOpenAIChat), '/v1/chat/completions', { stream: true }],
];

describe('hidden classes on the chat path', () => {
  it.each(cases)(
    '%s: every request’s trace and reply headers share one hidden class',
    async (_name, route, path, extra) => {
      const body = { model: MODEL, messages: [{ role: 'user', content: 'hi' }], ...extra };

      const { traces, headers } = await serveMany(route, path, body);

      expect(traces).toHaveLength(REQUESTS);
      expect(traces.every((trace) => trace.status === 'completed')).toBe(true);
      expect(headers).toHaveLength(REQUESTS);
      const [traceA, traceB] = traces.slice(-2) as [Trace, Trace];
      const [headersA, headersB] = headers.slice(-2) as [object, object];
      expect(haveSameMap(traceA, traceB)).toBe(true);
      expect(haveSameMap(headersA, headersB)).toBe(true);
    },
  );

  it('tells a shared hidden class from a fresh one per object (the check can fail)', () => {
    const source = { status: 'completed', nodeId: 'gpu1' };
    const made = Array.from({ length: REQUESTS }, (_, index) => ({ ...source, latencyMs: index }));
    const [a, b] = made.slice(-2) as [object, object];

    expect(haveSameMap(a, b)).toBe(false);
  });
});
