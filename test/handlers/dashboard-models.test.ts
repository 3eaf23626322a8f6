/**
 * The dashboard's model routes through `functions/dashboard` in process, on both hosts, on the in-process
 * table in front of a simulated Ollama node: model management (exact fields, usage from seeded rollups),
 * recommendations (shape, cache), and pull and delete on a node (progress lines, the lock's 409, the
 * 404s, the registry updated before the reply).
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { CATALOG, type SimNode, startSimNode } from '../../emulator/sim';
import { routes } from '../../functions/dashboard';
import { routes as ollamaRoutes } from '../../functions/ollama';
import { serveModelManagement } from '../../lib/features/model-management/serve-model-management';
import { serveRecommendations } from '../../lib/features/recommendations/serve-recommendations';
import { initServices, type Services } from '../../lib/instance';
import { createRollupReader } from '../../lib/services/analytics/rollup-reader';
import { createBufferedHandler } from '../../lib/services/http/handler';
import { loadConfig } from '../../lib/services/platform/config';
import { dayRollupKey, hourRollupKey, totalRollupKey } from '../../lib/services/store/keys';
import { createPullLockRepository } from '../../lib/services/store/pull-lock-repository';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { makeLoadedModel, makeNodeModel, makeNodeRecord } from '../helpers/factories';
import { HOSTS } from '../helpers/hosts';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

const DAY = 86_400_000;
const NOW = Date.now();
const QWEN_LAST_AT = NOW - 3_600_000;
const OLD_LAST_AT = NOW - 20 * DAY - 1000;

let store: StoreFixture;
let services: Services;
let node: SimNode;

async function seedRollup(key: { pk: string; sk: string }, requests: number, lastAt: number): Promise<void> {
  await services.table.addCounters(key.pk, key.sk, { requests, completed: requests }, { last_at: lastAt });
}

beforeAll(async () => {
  store = await startStore('dashboard-models');
  node = await startSimNode({ id: 'sim', models: CATALOG.filter((entry) => entry.name === 'qwen3:8b'), pullStepMs: 1 });
  services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
  await services.registry.save(
    makeNodeRecord({
      id: 'sim',
      source: 'agent',
      url: node.url,
      lastSeenAt: NOW + 3_600_000,
      memory: { totalGb: 64, usedGb: 8, availableGb: 56, pressure: 'normal' },
      disk: { totalGb: 1000, usedGb: 400, availableGb: 600 },
      models: [
        makeNodeModel({
          name: 'old:1b',
          size: 1_000_000_000,
          details: { family: 'llama', parameter_size: '1.2B', quantization_level: 'Q8_0' },
        }),
        makeNodeModel({
          name: 'qwen3:8b',
          size: 5_225_388_164,
          details: { family: 'qwen3', parameter_size: '8.2B', quantization_level: 'Q4_K_M' },
        }),
      ],
      loaded: [makeLoadedModel({ name: 'qwen3:8b', size: 6_000_000_000, contextLength: 8192 })],
    }),
  );
  // A polled Ollama server: no memory reported, so no advice for it. Nothing here calls it.
  await services.registry.save(
    makeNodeRecord({ id: 'listed', url: 'http://127.0.0.1:9', lastSeenAt: NOW + 3_600_000, models: [], loaded: [] }),
  );
  await services.registry.refresh();
  const qwen = { kind: 'node-model', nodeId: 'sim', model: 'qwen3:8b' } as const;
  await seedRollup(dayRollupKey(NOW, qwen), 5, QWEN_LAST_AT);
  await seedRollup(dayRollupKey(NOW - 10 * DAY, qwen), 7, NOW - 10 * DAY);
  await seedRollup(dayRollupKey(OLD_LAST_AT, { kind: 'node-model', nodeId: 'sim', model: 'old:1b' }), 2, OLD_LAST_AT);
  await seedRollup(totalRollupKey('sim', 'qwen3:8b'), 40, QWEN_LAST_AT);
  await seedRollup(totalRollupKey('sim', 'old:1b'), 2, OLD_LAST_AT);
  await seedRollup(hourRollupKey(NOW, { kind: 'model', model: 'qwen3:8b' }), 5, QWEN_LAST_AT);
});

afterAll(async () => {
  await closeServices(services);
  await node.close();
  await store.close();
});

beforeEach(async () => {
  await node.faults.reset();
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
  // A pull's trace would count in the rollups this file seeds by hand (issue 22: pulls are traced).
  jest.spyOn(services.traces, 'record').mockImplementation(() => undefined);
});

const get = (path: string, query?: Record<string, string>) =>
  makeHttpEvent({ method: 'GET', path, ...(query === undefined ? {} : { query }) });
const post = (path: string, body: object) => makeHttpEvent({ method: 'POST', path, body });
const linesOf = (body: string) =>
  body
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

interface ManagedBody {
  nodes: { node_id: string; models: { name: string }[] }[];
}

describe('the dashboard model reads in process', () => {
  describe.each(HOSTS)('%s host', (_hostName, host) => {
    it('GET model-management lists each model on disk with its usage, loaded first', async () => {
      const reply = await host(routes(services), get('/dashboard/api/model-management'));

      expect(reply.statusCode).toBe(200);
      const body = JSON.parse(reply.body) as ManagedBody & Record<string, unknown>;
      const sim = body.nodes.find((entry) => entry.node_id === 'sim');
      expect(sim).toEqual({
        node_id: 'sim',
        status: 'online',
        model_count: 2,
        loaded_count: 1,
        total_size_bytes: 6_225_388_164,
        total_size_gb: 6.23,
        disk_total_gb: 1000,
        disk_available_gb: 600,
        models: [
          {
            name: 'qwen3:8b',
            display_name: 'Qwen 3 8B',
            category: 'general',
            family: 'qwen3',
            size_bytes: 5_225_388_164,
            size_gb: 5.23,
            parameter_size: '8.2B',
            quantization: 'Q4_K_M',
            loaded: true,
            loaded_in_vram: true,
            context_length: 8192,
            loaded_size_bytes: 6_000_000_000,
            last_used: Math.floor(QWEN_LAST_AT / 1000),
            days_unused: 0,
            requests_7d: 5,
            requests_30d: 12,
            total_requests: 40,
            unused: false,
          },
          {
            name: 'old:1b',
            display_name: null,
            category: 'general',
            family: 'llama',
            size_bytes: 1_000_000_000,
            size_gb: 1,
            parameter_size: '1.2B',
            quantization: 'Q8_0',
            loaded: false,
            loaded_in_vram: false,
            context_length: null,
            loaded_size_bytes: null,
            last_used: Math.floor(OLD_LAST_AT / 1000),
            days_unused: 20,
            requests_7d: 0,
            requests_30d: 2,
            total_requests: 2,
            unused: true,
          },
        ],
      });
      expect(body.nodes.find((entry) => entry.node_id === 'listed')).toMatchObject({
        models: [],
        disk_total_gb: null,
        disk_available_gb: null,
      });
    });

    it('GET recommendations advises each node from the demand, then answers from its cache', async () => {
      const first = await host(routes(services), get('/dashboard/api/recommendations', { refresh: '1' }));
      const second = await host(routes(services), get('/dashboard/api/recommendations'));

      expect(first.statusCode).toBe(200);
      const body = JSON.parse(first.body);
      expect(body).toMatchObject({
        cached: false,
        usage: {
          total_requests_24h: 5,
          category_breakdown: { general: 5 },
          top_models: [{ model: 'qwen3:8b', requests: 5, category: 'general' }],
        },
        uncovered_categories: [],
        rules: { reserve_gb: 6, single_model_share: 0.5 },
      });
      const sim = body.nodes.find((entry: { node_id: string }) => entry.node_id === 'sim');
      expect(sim).toMatchObject({ total_ram_gb: 64, usable_ram_gb: 58, single_model_cap_gb: 29 });
      // The node's most-used model is kept, and says it is there.
      expect(sim.recommendations[0]).toMatchObject({
        model: 'qwen3:8b',
        already_available: true,
        loaded: true,
        priority: 'high',
        recent_requests: 5,
      });
      expect(body.nodes.find((entry: { node_id: string }) => entry.node_id === 'listed')).toMatchObject({
        recommendations: [],
        total_ram_gb: null,
      });
      expect(JSON.parse(second.body)).toMatchObject({ cached: true, generated_at: body.generated_at });
    });

    it('answers a bad refresh with 400 naming it', async () => {
      const reply = await host(routes(services), get('/dashboard/api/recommendations', { refresh: 'soon' }));

      expect(reply.statusCode).toBe(400);
      expect(JSON.parse(reply.body)).toEqual({ error: expect.objectContaining({ param: 'refresh' }) });
    });
  });
});

describe('what the model reads cost the table', () => {
  it('reads 31 partitions for model management and at most 4 for recommendations, whatever the rows in them', async () => {
    let queries = 0;
    const counted = createRollupReader({
      queryDocs: (pk, options) => {
        queries += 1;
        return services.table.queryDocs(pk, options);
      },
    });
    const deps = { registry: services.registry, rollups: counted };
    const handler = createBufferedHandler({
      'GET /dashboard/api/model-management': (request, response) => serveModelManagement(deps, request, response),
      'GET /dashboard/api/recommendations': (request, response) => serveRecommendations(deps, request, response),
    });

    await handler(get('/dashboard/api/model-management'));
    const management = queries;
    queries = 0;
    await handler(get('/dashboard/api/recommendations'));
    const recommendations = queries;
    queries = 0;
    await handler(get('/dashboard/api/recommendations'));

    // 30 UTC days of node × model rollups and the all-time totals.
    expect(management).toBe(31);
    // Yesterday's and today's day partitions (per node and model), and the hour partitions (per model) the
    // last 24 clock hours touch: both days, or only today from 23:00 UTC.
    expect(recommendations).toBe(new Date().getUTCHours() === 23 ? 3 : 4);
    // Within the minute: from the cache.
    expect(queries).toBe(0);
  });
});

// After the reads: the pulls below add models to the node.
describe('the dashboard model operations in process', () => {
  describe.each(HOSTS)('%s host', (hostName, host) => {
    it("POST pull relays the node's progress and the pulled model shows in model management", async () => {
      const model = `tinyllama-${hostName}:1.1b`;

      const reply = await host(routes(services), post('/dashboard/api/pull', { node_id: 'sim', model }));
      const managed = await host(routes(services), get('/dashboard/api/model-management'));

      const lines = linesOf(reply.body);
      expect(reply.statusCode).toBe(200);
      expect(reply.headers).toMatchObject({ 'content-type': 'application/x-ndjson', 'x-fleet-node': 'sim' });
      expect(lines[0]).toEqual({ status: 'pulling manifest' });
      expect(lines.some((line) => typeof line['digest'] === 'string' && line['completed'] !== undefined)).toBe(true);
      expect(lines.at(-1)).toEqual({ status: 'success' });
      const sim = (JSON.parse(managed.body) as ManagedBody).nodes.find((entry) => entry.node_id === 'sim');
      expect(sim?.models.map((entry) => entry.name)).toContain(model);
    });

    it('POST pull takes `name` too, and chooses the node when none is named', async () => {
      const reply = await host(routes(services), post('/dashboard/api/pull', { name: `small-${hostName}:0.5b` }));

      expect(reply.headers['x-fleet-node']).toBe('sim');
      expect(linesOf(reply.body).at(-1)).toEqual({ status: 'success' });
    });

    it('POST pull answers 409 in the dashboard shape while the model is being pulled', async () => {
      const lease = await createPullLockRepository(services.table).acquire(`held-${hostName}:latest`, {
        nodeId: 'sim',
      });

      const reply = await host(routes(services), post('/dashboard/api/pull', { model: `held-${hostName}` }));
      await lease?.release();

      expect(reply.statusCode).toBe(409);
      expect(JSON.parse(reply.body)).toEqual({
        error: expect.objectContaining({ message: `model 'held-${hostName}' is already being pulled` }),
      });
    });

    it('POST pull answers 400 naming model when it is missing, 404 for an unknown node', async () => {
      const missing = await host(routes(services), post('/dashboard/api/pull', { node_id: 'sim' }));
      const unknown = await host(routes(services), post('/dashboard/api/pull', { node_id: 'nope', model: 'llama3' }));

      expect(missing.statusCode).toBe(400);
      expect(JSON.parse(missing.body)).toEqual({
        error: expect.objectContaining({ message: 'model is required', param: 'model' }),
      });
      expect(unknown.statusCode).toBe(404);
      expect(JSON.parse(unknown.body)).toEqual({
        error: expect.objectContaining({ message: "node 'nope' not found" }),
      });
    });

    it('POST delete removes the model on the node and from /api/tags before replying', async () => {
      const model = `doomed-${hostName}:1b`;
      await host(routes(services), post('/dashboard/api/pull', { node_id: 'sim', model, stream: false }));

      const reply = await host(routes(services), post('/dashboard/api/delete', { node_id: 'sim', model }));
      const tags = await host(ollamaRoutes(services), get('/api/tags'));

      expect(reply.statusCode).toBe(200);
      expect(JSON.parse(reply.body)).toEqual({ ok: true, node_id: 'sim', model });
      expect(node.snapshot().models.map((entry) => entry.name)).not.toContain(model);
      expect((await services.registry.record('sim'))?.models.map((entry) => entry.name)).not.toContain(model);
      const listed = (JSON.parse(tags.body) as { models: { name: string }[] }).models.map((entry) => entry.name);
      expect(listed).not.toContain(model);
      expect(listed).toContain('qwen3:8b');
    });

    it('POST delete answers 404 for an unknown node and for a model the node does not have', async () => {
      const unknownNode = await host(
        routes(services),
        post('/dashboard/api/delete', { node_id: 'nope', model: 'qwen3:8b' }),
      );
      const unknownModel = await host(
        routes(services),
        post('/dashboard/api/delete', { node_id: 'sim', model: 'absent:7b' }),
      );

      expect(unknownNode.statusCode).toBe(404);
      expect(JSON.parse(unknownNode.body)).toEqual({
        error: expect.objectContaining({ message: "node 'nope' not found" }),
      });
      expect(unknownModel.statusCode).toBe(404);
      expect(JSON.parse(unknownModel.body)).toEqual({
        error: expect.objectContaining({ message: "model 'absent:7b' not found on node 'sim'" }),
      });
    });

    it('POST delete answers 404 when the node itself no longer has the model, and forgets it', async () => {
      const ghost = makeNodeModel({ name: `ghost-${hostName}:1b` });
      await services.registry.recordModel('sim', ghost);
      await services.registry.refresh();

      const reply = await host(routes(services), post('/dashboard/api/delete', { node_id: 'sim', model: ghost.name }));

      expect(reply.statusCode).toBe(404);
      expect((await services.registry.record('sim'))?.models.map((entry) => entry.name)).not.toContain(ghost.name);
    });

    it('POST delete answers 400 naming the missing field', async () => {
      const noNode = await host(routes(services), post('/dashboard/api/delete', { model: 'qwen3:8b' }));
      const noModel = await host(routes(services), post('/dashboard/api/delete', { node_id: 'sim' }));

      expect(noNode.statusCode).toBe(400);
      expect(JSON.parse(noNode.body)).toEqual({ error: expect.objectContaining({ param: 'node_id' }) });
      expect(noModel.statusCode).toBe(400);
      expect(JSON.parse(noModel.body)).toEqual({ error: expect.objectContaining({ param: 'model' }) });
    });
  });
});
