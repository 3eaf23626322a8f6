/**
 * The routed exchange read whole (`exchangeWhole`) in process, on the in-process table, against a small
 * scripted HTTP node, with the instance's one dispatcher: what the caller gets back, what the trace says,
 * and that the queue slot is given back on every path.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Trace } from '../../../../lib/core/analytics/trace-record';
import { UpstreamError } from '../../../../lib/core/errors';
import { initServices, type Services } from '../../../../lib/instance';
import { type ExchangeInput, exchangeWhole, nodeRefusal } from '../../../../lib/services/dispatch/routed-exchange';
import { toHttpRequest } from '../../../../lib/services/http/request';
import { createBufferedSink } from '../../../../lib/services/http/response-sink';
import { openNodeStream } from '../../../../lib/services/node-client/node-stream';
import { loadConfig } from '../../../../lib/services/platform/config';
import { closeServices } from '../../../helpers/close-services';
import { makeHttpEvent } from '../../../helpers/events';
import { makeNodeModel, makeNodeRecord } from '../../../helpers/factories';
import { type StoreFixture, startStore } from '../../../helpers/store-fixture';

let store: StoreFixture;
let services: Services;
let node: Server;
let nodeUrl: string;
/** What the scripted node answers next. */
let next: { status: number; body: string; breakOff?: boolean } = { status: 200, body: '{}' };
let traces: Trace[];

beforeAll(async () => {
  store = await startStore('routed-exchange');
  node = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(next.status, { 'content-type': 'application/json', 'content-length': '1000' });
      if (next.breakOff === true) {
        response.write(next.body);
        setTimeout(() => response.socket?.destroy(), 20);
        return;
      }
      response.end(next.body.padEnd(1000));
    });
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
  services = initServices(
    loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName, FLEET_MAX_RETRIES: '0' }),
  );
  await services.registry.save(
    makeNodeRecord({
      id: 'emb-node',
      url: nodeUrl,
      lastSeenAt: Date.now() + 3_600_000,
      models: [makeNodeModel({ name: 'embedder:latest', kind: 'embedding', capabilities: ['embedding'] })],
      loaded: [],
    }),
  );
  await services.registry.refresh();
});

afterAll(async () => {
  await closeServices(services);
  await new Promise((resolve) => node.close(resolve));
  await store.close();
});

beforeEach(() => {
  traces = [];
  jest.spyOn(services.traces, 'record').mockImplementation((trace) => {
    traces.push(trace);
  });
});

/** An embeddings request for `model`; `tableWaitMs`: what its route waited for the fleet read. */
function input(model = 'embedder', tableWaitMs?: number): ExchangeInput {
  const request = toHttpRequest(makeHttpEvent({ method: 'POST', path: '/api/embed', body: {} }));
  const routing = { model, fallbackModels: [], kind: 'embedding', needsVision: false } as const;
  return {
    routing,
    send: (attempt, signal) => openNodeStream(attempt.node.url, '/api/embed', { model: attempt.model }, { signal }),
    signal: createBufferedSink().sink.clientGone,
    traced: { request, style: 'embeddings', routing, tags: ['team:search'], tableWaitMs },
  };
}

const depth = () => services.routing.queues.depth('emb-node', 'embedder:latest');

describe('exchangeWhole', () => {
  it('hands the whole reply to the interpreter and answers its value with the X-Fleet-* headers', async () => {
    next = { status: 200, body: '{"embeddings":[[1,2]]}' };

    const result = await exchangeWhole(services, input(), (answer) => ({
      value: JSON.parse(answer.body.toString()) as unknown,
      promptTokens: 3,
      loadMs: 1200,
    }));

    expect(result.value).toEqual({ embeddings: [[1, 2]] });
    expect(result.headers).toMatchObject({ 'x-fleet-node': 'emb-node', 'x-fleet-model': 'embedder:latest' });
    expect(traces).toEqual([
      expect.objectContaining({
        status: 'completed',
        style: 'embeddings',
        nodeId: 'emb-node',
        requestedModel: 'embedder',
        servedModel: 'embedder:latest',
        promptTokens: 3,
        loadMs: 1200,
        tags: ['team:search'],
      }),
    ]);
    // The breakdown as the reference keeps it: points per signal, adding up to the score.
    const [trace] = traces;
    const points = Object.values(trace?.scoreBreakdown ?? {});
    expect(points).toHaveLength(9);
    expect(points.reduce((sum, value) => sum + value, 0)).toBeCloseTo(trace?.score ?? Number.NaN, 10);
    expect(depth()).toBe(0);
  });

  it("gives a node's 4xx to the interpreter, whose error is the request's, traced as failed", async () => {
    next = { status: 400, body: '{"error":"input too long"}' };

    const call = exchangeWhole(services, input(), (answer) => {
      if (answer.status >= 400) throw nodeRefusal(answer);
      return { value: undefined };
    });

    await expect(call).rejects.toMatchObject({ status: 400, message: 'input too long' });
    expect(traces).toEqual([
      expect.objectContaining({ status: 'failed', nodeId: 'emb-node', error: 'input too long' }),
    ]);
    expect(depth()).toBe(0);
  });

  it('traces a reply the interpreter refuses as failed and frees the slot', async () => {
    next = { status: 200, body: '{"embeddings":[]}' };

    const call = exchangeWhole(services, input(), () => {
      throw new UpstreamError('the node returned 0 vectors for 1 input');
    });

    // The node was chosen: the 502 carries its X-Fleet-* headers.
    await expect(call).rejects.toMatchObject({
      status: 502,
      headers: expect.objectContaining({ 'x-fleet-node': 'emb-node', 'x-fleet-model': 'embedder:latest' }),
    });
    expect(traces).toEqual([
      expect.objectContaining({ status: 'failed', error: expect.stringContaining('0 vectors') }),
    ]);
    expect(depth()).toBe(0);
  });

  it("leaves no trace for the router's own calls (the summariser's), and still frees the slot", async () => {
    next = { status: 200, body: '{"message":{"content":"short"}}' };
    const { traced: _traced, ...untraced } = input();

    const result = await exchangeWhole(services, untraced, (answer) => ({ value: answer.status }));

    expect(result.value).toBe(200);
    expect(traces).toEqual([]);
    expect(depth()).toBe(0);
  });

  it('answers a model no node has with 404 and traces it without a node', async () => {
    const missing = input('nobody-has-this');

    await expect(exchangeWhole(services, missing, () => ({ value: undefined }))).rejects.toMatchObject({ status: 404 });
    expect(traces).toEqual([expect.objectContaining({ status: 'failed', requestedModel: 'nobody-has-this' })]);
    expect(traces[0]?.nodeId).toBeUndefined();
  });

  it("puts what the route waited for the table's fleet read in the trace, served or not", async () => {
    next = { status: 200, body: '{"embeddings":[[1]]}' };

    await exchangeWhole(services, input('embedder', 3), () => ({ value: 0 }));
    const missing = exchangeWhole(services, input('nobody-has-this', 4), () => ({ value: 0 }));
    await expect(missing).rejects.toMatchObject({ status: 404 });

    expect(traces).toEqual([
      expect.objectContaining({ status: 'completed', tableWaitMs: 3 }),
      expect.objectContaining({ status: 'failed', tableWaitMs: 4 }),
    ]);
  });

  it('fails with a 5xx-class error when the only node answers 5xx, with no slot left held', async () => {
    next = { status: 500, body: '{"error":"boom"}' };

    const call = exchangeWhole(services, input(), () => ({ value: undefined }));

    await expect(call).rejects.toMatchObject({ status: expect.any(Number) });
    await call.catch((error: { status: number }) => expect(error.status).toBeGreaterThanOrEqual(500));
    expect(depth()).toBe(0);
  });

  it('answers a reply that breaks off mid-body with 502 naming the node, traced as failed', async () => {
    next = { status: 200, body: '{"embeddings":[[1,', breakOff: true };

    const call = exchangeWhole(services, input(), () => ({ value: undefined }));

    await expect(call).rejects.toMatchObject({
      status: 502,
      message: 'node emb-node broke off its reply',
      headers: expect.objectContaining({ 'x-fleet-node': 'emb-node' }),
    });
    expect(traces).toEqual([expect.objectContaining({ status: 'failed', nodeId: 'emb-node' })]);
    expect(depth()).toBe(0);
  });

  it('counts a reply that breaks off against its node: three in a row eject it', async () => {
    const target = { nodeId: 'emb-node', backend: 'ollama' } as const;
    // A whole reply first: the count starts from zero.
    next = { status: 200, body: '{}' };
    await exchangeWhole(services, input(), () => ({ value: undefined }));
    next = { status: 200, body: '{"embeddings":[[1,', breakOff: true };

    for (let round = 0; round < 3; round += 1) {
      expect(services.routing.ejection.ejected(target, Date.now())).toBeUndefined();
      await exchangeWhole(services, input(), () => ({ value: undefined })).catch(() => undefined);
    }

    expect(services.routing.ejection.ejected(target, Date.now())).toMatchObject({ cause: 'transport' });
  });
});
