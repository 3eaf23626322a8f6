/**
 * What the traces of one chat request say when nodes fail or the client leaves before a node answers
 * (issue: traces and usage — "no trace is lost when a node fails or a client leaves"): every attempt that
 * failed has its own `retried` trace, timed to when it failed; a request no node served names the node
 * it ended on; a one-object answer, which arrives whole, takes its time to first token from the node.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { serveOllamaChat } from '../../../../lib/features/chat/ollama-chat';
import { getServices, type Services } from '../../../../lib/instance';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { createBufferedSink } from '../../../../lib/services/http/response-sink';
import { makeHttpEvent } from '../../../helpers/events';
import { makeLoadedModel, makeNodeModel } from '../../../helpers/factories';
import { type ScriptedNode, type ScriptedNodesFixture, startScriptedNodes } from '../../../helpers/scripted-nodes';

const MODEL = 'llama3.2:3b';

type Answer = (request: IncomingMessage, response: ServerResponse) => void;

let fixture: ScriptedNodesFixture;
let services: Services;
/** `first` ranks first (its model is loaded, `second`'s is not). */
const first: ScriptedNode = {
  record: { id: 'first', models: [makeNodeModel({ name: MODEL })], loaded: [makeLoadedModel({ name: MODEL })] },
  answer: () => {},
};
const second: ScriptedNode = {
  record: { id: 'second', models: [makeNodeModel({ name: MODEL })], loaded: [] },
  answer: () => {},
};
let traces: Trace[];

const ms = (value: number) => value * 1e6;

function answerAfter(delayMs: number, body: object): Answer {
  return (_request, response) => {
    setTimeout(() => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    }, delayMs);
  };
}

const failing: Answer = (_request, response) => {
  response.writeHead(500, { 'content-type': 'application/json' });
  response.end('{"error":"out of memory"}');
};

beforeAll(async () => {
  fixture = await startScriptedNodes('request-traces', [first, second]);
  services = fixture.services;
});

afterAll(async () => {
  await fixture.close();
});

beforeEach(() => {
  traces = [];
  jest.spyOn(services.traces, 'record').mockImplementation((trace) => {
    traces.push(trace);
  });
});

const chatBody = { model: MODEL, stream: false, messages: [{ role: 'user', content: 'hi' }] };

async function chat(): Promise<number> {
  const { sink, result } = createBufferedSink();
  await serveOllamaChat(
    getServices(),
    toHttpRequest(makeHttpEvent({ method: 'POST', path: '/api/chat', body: chatBody })),
    sink,
    'chat',
  );
  return result().statusCode;
}

describe('the traces of a request whose nodes fail', () => {
  it('times a retried attempt to when it failed, not to when another node served', async () => {
    first.answer = failing;
    second.answer = answerAfter(400, { model: MODEL, message: { role: 'assistant', content: 'hi' }, done: true });

    expect(await chat()).toBe(200);

    expect(traces.map((trace) => [trace.status, trace.nodeId])).toEqual([
      ['retried', 'first'],
      ['completed', 'second'],
    ]);
    const [retried, completed] = traces as [Trace, Trace];
    expect(retried.error).toBe('failed (HTTP 500)');
    // The second node took 400 ms after the first had failed.
    expect(completed.latencyMs - retried.latencyMs).toBeGreaterThanOrEqual(390);
  });

  it('traces every failed attempt when none serves, the last as the failed request with its node', async () => {
    first.answer = failing;
    second.answer = failing;

    await expect(chat()).rejects.toMatchObject({ status: 503 });

    expect(traces.map((trace) => [trace.status, trace.nodeId, trace.retries])).toEqual([
      ['retried', 'first', 0],
      ['failed', 'second', 1],
    ]);
    const failed = traces[1] as Trace;
    expect(failed.servedModel).toBe(MODEL);
    expect(failed.score).toEqual(expect.any(Number));
    expect(failed.error).toContain('no node can take model');
  });

  it('names the node a client was queued on when it left before any node answered', async () => {
    const held = [
      services.routing.queues.tryAcquire('first', MODEL, 1),
      services.routing.queues.tryAcquire('second', MODEL, 1),
    ];
    const { sink } = createBufferedSink();
    const request = toHttpRequest(makeHttpEvent({ method: 'POST', path: '/api/chat', body: chatBody }));
    try {
      const served = serveOllamaChat(getServices(), request, sink, 'chat');
      setTimeout(() => sink.clientGone.fire(), 50);
      await expect(served).rejects.toBeDefined();
    } finally {
      for (const slot of held) slot?.release('cancelled');
    }

    expect(traces).toEqual([expect.objectContaining({ status: 'client_disconnected', nodeId: 'first' })]);
    expect(services.routing.queues.depth('first', MODEL)).toBe(0);
  });
});

describe('the time to first token of a one-object answer', () => {
  it('is when the node says its first token came, not when the whole answer arrived', async () => {
    first.answer = answerAfter(250, {
      model: MODEL,
      message: { role: 'assistant', content: 'one two three' },
      done: true,
      load_duration: ms(10),
      prompt_eval_duration: ms(20),
      eval_count: 10,
      eval_duration: ms(100),
    });

    expect(await chat()).toBe(200);

    const [trace] = traces as [Trace];
    expect(trace.latencyMs).toBeGreaterThanOrEqual(240);
    // 10 + 20 + one of ten tokens (10) after the request was sent: 40 ms, plus the router's own moments.
    expect(trace.timeToFirstTokenMs).toBeGreaterThanOrEqual(40);
    expect(trace.timeToFirstTokenMs).toBeLessThan(150);
    // The node's own load, in ms: what the rollups count cold loads by.
    expect(trace.loadMs).toBe(10);
  });

  it('is left out when the node does not say', async () => {
    first.answer = answerAfter(50, { model: MODEL, message: { role: 'assistant', content: 'hi' }, done: true });

    expect(await chat()).toBe(200);

    expect(traces).toHaveLength(1);
    expect(traces[0]?.timeToFirstTokenMs).toBeUndefined();
    expect(traces[0]?.loadMs).toBeUndefined();
    expect(traces[0]?.cachedTokens).toBeUndefined();
  });
});
