/**
 * What the traces of one chat request say when nodes fail or the client leaves before a node answers
 * (issue: traces and usage — "no trace is lost when a node fails or a client leaves"): every attempt that
 * failed has its own `retried` trace, timed to when it failed; a request no node served names the node
 * it ended on; a one-object answer, which arrives whole, takes its time to first token from the node.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Trace } from '../../../lib/analytics/trace';
import { serveOllamaChat } from '../../../lib/chat/ollama-chat';
import { loadConfig } from '../../../lib/config';
import { toHttpRequest } from '../../../lib/http/request';
import { createBufferedSink } from '../../../lib/http/response-sink';
import { initServices, type Services } from '../../../lib/services';
import { makeHttpEvent } from '../../helpers/events';
import { makeLoadedModel, makeNodeModel, makeNodeRecord } from '../../helpers/factories';
import { type StoreFixture, startStore } from '../store/store-fixture';

const MODEL = 'llama3.2:3b';

type Answer = (request: IncomingMessage, response: ServerResponse) => void;

let store: StoreFixture;
let services: Services;
const servers: Server[] = [];
/** What each node does with the next request; `first` ranks first (its model is loaded, `second`'s is not). */
const answers: Record<'first' | 'second', Answer> = { first: () => {}, second: () => {} };
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

async function startNode(name: 'first' | 'second'): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answers[name](request, response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  store = await startStore('request-traces');
  services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
  const lastSeenAt = Date.now() + 3_600_000;
  await services.registry.save(
    makeNodeRecord({
      id: 'first',
      url: await startNode('first'),
      lastSeenAt,
      models: [makeNodeModel({ name: MODEL })],
      loaded: [makeLoadedModel({ name: MODEL })],
    }),
  );
  await services.registry.save(
    makeNodeRecord({
      id: 'second',
      url: await startNode('second'),
      lastSeenAt,
      models: [makeNodeModel({ name: MODEL })],
      loaded: [],
    }),
  );
  await services.registry.refresh();
});

afterAll(async () => {
  await services.writeBehind.close();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await store.close();
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
    toHttpRequest(makeHttpEvent({ method: 'POST', path: '/api/chat', body: chatBody })),
    sink,
    'chat',
  );
  return result().statusCode;
}

describe('the traces of a request whose nodes fail', () => {
  it('times a retried attempt to when it failed, not to when another node served', async () => {
    answers.first = failing;
    answers.second = answerAfter(400, { model: MODEL, message: { role: 'assistant', content: 'hi' }, done: true });

    expect(await chat()).toBe(200);

    expect(traces.map((trace) => [trace.status, trace.nodeId])).toEqual([
      ['retried', 'first'],
      ['completed', 'second'],
    ]);
    const [retried, completed] = traces as [Trace, Trace];
    expect(retried.error).toBe('answered 500');
    // The second node took 400 ms after the first had failed.
    expect(completed.latencyMs - retried.latencyMs).toBeGreaterThanOrEqual(390);
  });

  it('traces every failed attempt when none serves, the last as the failed request with its node', async () => {
    answers.first = failing;
    answers.second = failing;

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
      const served = serveOllamaChat(request, sink, 'chat');
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
    answers.first = answerAfter(250, {
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
  });

  it('is left out when the node does not say', async () => {
    answers.first = answerAfter(50, { model: MODEL, message: { role: 'assistant', content: 'hi' }, done: true });

    expect(await chat()).toBe(200);

    expect(traces).toHaveLength(1);
    expect(traces[0]?.timeToFirstTokenMs).toBeUndefined();
  });
});
