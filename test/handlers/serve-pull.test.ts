/**
 * `POST /api/pull` through `functions/ollama` in process, on both hosts, on the in-process table against
 * a simulated Ollama node: the relay, the model listed right after, the lock, the node's refusals, and
 * the one `pull` trace each pull leaves.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { type SimNode, startSimNode } from '../../emulator/sim';
import { routes } from '../../functions/ollama';
import type { Trace } from '../../lib/core/analytics/trace-record';
import { initServices, type Services } from '../../lib/instance';
import { loadConfig } from '../../lib/services/platform/config';
import { createPullLockRepository } from '../../lib/services/store/pull-lock-repository';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { makeNodeRecord } from '../helpers/factories';
import { HOSTS } from '../helpers/hosts';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

let store: StoreFixture;
let services: Services;
let node: SimNode;
let traces: Trace[];

beforeAll(async () => {
  store = await startStore('serve-pull');
  node = await startSimNode({ id: 'sim', models: [], pullStepMs: 1 });
  services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
  await services.registry.save(
    makeNodeRecord({
      id: 'sim',
      source: 'agent',
      url: node.url,
      lastSeenAt: Date.now() + 3_600_000,
      memory: { totalGb: 64, usedGb: 8, availableGb: 56, pressure: 'normal' },
      models: [],
      loaded: [],
    }),
  );
  await services.registry.refresh();
});

afterAll(async () => {
  await closeServices(services);
  await node.close();
  await store.close();
});

beforeEach(async () => {
  await node.faults.reset();
  // The handler logs 5xx failures; these tests cause them on purpose.
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
  traces = [];
  jest.spyOn(services.traces, 'record').mockImplementation((trace) => {
    traces.push(trace);
  });
});

const pull = (body: object, headers: Record<string, string> = {}) =>
  makeHttpEvent({ method: 'POST', path: '/api/pull', body, headers });

const linesOf = (body: string) =>
  body
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('POST /api/pull in process', () => {
  describe.each(HOSTS)('%s host', (hostName, host) => {
    it("relays the node's progress from pulling manifest to success and traces it completed", async () => {
      const model = `tinyllama-${hostName}:1.1b`;

      const reply = await host(routes(services), pull({ name: model }, { 'X-Service-Tags': 'team:ml' }));

      const lines = linesOf(reply.body);
      expect(reply.statusCode).toBe(200);
      expect(reply.headers).toMatchObject({ 'content-type': 'application/x-ndjson', 'x-fleet-node': 'sim' });
      expect(lines[0]).toEqual({ status: 'pulling manifest' });
      expect(lines.at(-1)).toEqual({ status: 'success' });
      expect(lines.some((line) => typeof line['digest'] === 'string' && line['completed'] !== undefined)).toBe(true);
      expect(traces).toEqual([
        expect.objectContaining({
          style: 'pull',
          status: 'completed',
          requestedModel: model,
          nodeId: 'sim',
          servedModel: model,
          retries: 0,
          tags: ['team:ml'],
        }),
      ]);
      // A pull is not routed by the scorer: its trace has no score, no breakdown, no error.
      expect(traces[0]).not.toHaveProperty('score');
      expect(traces[0]).not.toHaveProperty('scoreBreakdown');
      expect(traces[0]).not.toHaveProperty('error');
    });

    it('lists the pulled model on the node right after the pull', async () => {
      const model = `phi-${hostName}:2.7b`;

      await host(routes(services), pull({ model, stream: false }));
      const tags = await host(routes(services), makeHttpEvent({ method: 'GET', path: '/api/tags' }));

      const listed = (JSON.parse(tags.body) as { models: { name: string; details: { fleet_nodes: string[] } }[] })
        .models;
      expect(listed.find((entry) => entry.name === model)?.details.fleet_nodes).toEqual(['sim']);
    });

    it('answers stream: false with {"status":"success"}', async () => {
      const reply = await host(routes(services), pull({ name: `small-${hostName}:0.5b`, stream: false }));

      expect(JSON.parse(reply.body)).toEqual({ status: 'success' });
      expect(reply.statusCode).toBe(200);
    });

    it('answers 409 while the same model is being pulled, whatever its spelling, and traces it failed', async () => {
      const lease = await createPullLockRepository(services.table).acquire(`held-${hostName}:latest`, {
        nodeId: 'sim',
      });

      const reply = await host(routes(services), pull({ name: `HELD-${hostName}` }));
      await lease?.release();

      expect(JSON.parse(reply.body)).toEqual({ error: `model 'HELD-${hostName}' is already being pulled` });
      expect(reply.statusCode).toBe(409);
      expect(traces).toEqual([expect.objectContaining({ style: 'pull', status: 'failed', nodeId: 'sim' })]);
    });

    it('releases the lock when the pull ends, so the model can be pulled again', async () => {
      const model = `again-${hostName}:1b`;

      await host(routes(services), pull({ name: model, stream: false }));
      const second = await host(routes(services), pull({ name: model, stream: false }));

      expect(JSON.parse(second.body)).toEqual({ status: 'success' });
    });

    it("passes the node's error line through and traces the pull failed", async () => {
      const reply = await host(routes(services), pull({ name: 'missing/nothing' }));

      expect(linesOf(reply.body)).toEqual([
        { status: 'pulling manifest' },
        { error: 'pull model manifest: file does not exist' },
      ]);
      expect(traces).toEqual([
        expect.objectContaining({ status: 'failed', error: 'pull model manifest: file does not exist' }),
      ]);
    });

    it('answers a node error with stream: false as 502 with the node message', async () => {
      const reply = await host(routes(services), pull({ name: 'missing/nothing', stream: false }));

      expect(JSON.parse(reply.body)).toEqual({ error: 'pull model manifest: file does not exist' });
      expect(reply.statusCode).toBe(502);
    });

    it('answers a node 5xx before streaming with 502 naming the node', async () => {
      node.faults.failNext(1, 500);

      const reply = await host(routes(services), pull({ name: `fails-${hostName}:1b` }));

      // The node's own output of a 5xx is the operator's to read, not the client's.
      expect(JSON.parse(reply.body)).toEqual({ error: "node 'sim' failed the pull (HTTP 500)" });
      expect(reply.statusCode).toBe(502);
      // The trace keeps what the client was told, not the node's output.
      expect(traces).toEqual([
        expect.objectContaining({
          style: 'pull',
          status: 'failed',
          nodeId: 'sim',
          servedModel: `fails-${hostName}:1b`,
          error: "node 'sim' failed the pull (HTTP 500)",
        }),
      ]);
    });

    it("answers a node 4xx before streaming with the node's status and message", async () => {
      node.faults.failNext(1, 400);

      const reply = await host(routes(services), pull({ name: `refused-${hostName}:1b` }));

      expect(JSON.parse(reply.body)).toEqual({ error: 'simulated failure' });
      expect(reply.statusCode).toBe(400);
    });

    it('ends a stream the node drops with an in-band error and traces it incomplete', async () => {
      node.faults.dropMidStream(2);

      const reply = await host(routes(services), pull({ name: `dropped-${hostName}:1b` }));

      const lines = linesOf(reply.body);
      expect(lines.slice(0, 2).map((line) => line['status'])).toEqual(['pulling manifest', expect.any(String)]);
      expect(lines.at(-1)).toEqual({ error: expect.stringMatching(/^the pull on node 'sim' broke off/) });
      expect(traces).toEqual([expect.objectContaining({ status: 'incomplete' })]);
    });

    it("answers an unknown node_id with 404 node '<id>' not found", async () => {
      const reply = await host(routes(services), pull({ name: 'llama3', node_id: 'nope' }));

      expect(JSON.parse(reply.body)).toEqual({ error: "node 'nope' not found" });
      expect(reply.statusCode).toBe(404);
      expect(traces).toEqual([expect.objectContaining({ status: 'failed', error: "node 'nope' not found" })]);
    });

    it('answers 503 when no node has the memory for the model', async () => {
      const reply = await host(routes(services), pull({ name: 'llama3.1:405b' }));

      expect(JSON.parse(reply.body)).toEqual({
        error: "no node has enough available memory to pull 'llama3.1:405b' (needs about 273.9 GB)",
      });
      expect(reply.statusCode).toBe(503);
    });
  });
});
