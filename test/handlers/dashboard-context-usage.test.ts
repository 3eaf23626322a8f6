/**
 * `GET /dashboard/api/context-usage` in process on both hosts, on dynalite: traces recorded through the
 * instance's recorder and written behind, a registry holding loaded copies with their context lengths
 * (an offline node's not counted), and the record of spec §2 per model with exact figures; a bad
 * parameter is a 400 naming it.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routes } from '../../functions/dashboard';
import type { Trace } from '../../lib/core/analytics/trace-record';
import { initServices, type Services } from '../../lib/instance';
import { createRollupReader } from '../../lib/services/analytics/rollup-reader';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { makeLoadedModel, makeNodeRecord } from '../helpers/factories';
import { HOSTS } from '../helpers/hosts';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.now();
const RECENT = NOW - HOUR;
const OLDER = NOW - 3 * DAY;

let store: StoreFixture;
let services: Services;

const trace = (model: string, nodeId: string, startedAt: number, promptTokens?: number, completionTokens?: number) =>
  ({
    requestId: 'r',
    startedAt,
    style: 'openai-chat',
    status: 'completed',
    requestedModel: model,
    servedModel: model,
    nodeId,
    latencyMs: 1000,
    retries: 0,
    tags: [],
    clientIp: '127.0.0.1',
    ...(promptTokens !== undefined ? { promptTokens } : {}),
    ...(completionTokens !== undefined ? { completionTokens } : {}),
  }) satisfies Trace;

const TRACES: Trace[] = [
  trace('llama3:8b', 'gpu-1', RECENT, 1000, 500),
  trace('llama3:8b', 'gpu-1', RECENT, 2000, 500),
  trace('llama3:8b', 'gpu-2', OLDER, 3000, 100),
  { ...trace('llama3:8b', 'gpu-2', OLDER), status: 'failed' },
  trace('qwen3:32b', 'gpu-2', RECENT, 100, 20),
  trace('mistral:7b', 'gpu-1', RECENT, 700, 300),
  // Served, but no prompt tokens to measure: no record.
  trace('x/flux2-klein', 'gpu-1', RECENT),
];

beforeAll(async () => {
  store = await startStore('dashboard-context-usage');
  services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
  const online = NOW + HOUR;
  await services.registry.save(
    makeNodeRecord({
      id: 'gpu-1',
      lastSeenAt: online,
      loaded: [makeLoadedModel({ name: 'llama3:8b', contextLength: 8192 })],
    }),
  );
  await services.registry.save(
    makeNodeRecord({
      id: 'gpu-2',
      lastSeenAt: online,
      loaded: [
        makeLoadedModel({ name: 'llama3:8b', contextLength: 4096 }),
        makeLoadedModel({ name: 'qwen3:32b', contextLength: 32_768 }),
      ],
    }),
  );
  await services.registry.save(
    makeNodeRecord({
      id: 'gpu-3',
      lastSeenAt: NOW - DAY,
      loaded: [makeLoadedModel({ name: 'llama3:8b', contextLength: 131_072 })],
    }),
  );
  await services.registry.refresh();
  for (const entry of TRACES) services.traces.record(entry);
  await services.writeBehind.flush();
});

afterAll(async () => {
  await closeServices(services);
  await store.close();
});

const get = (query: Record<string, string> = {}) =>
  makeHttpEvent({ method: 'GET', path: '/dashboard/api/context-usage', query });

describe('/dashboard/api/context-usage', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it('gives the record of spec §2 per model over the last 7 days, most requests first', async () => {
      const reply = await host(routes(services), get());

      expect(reply.statusCode).toBe(200);
      expect(JSON.parse(reply.body)).toEqual({
        days: 7,
        percentile_error_pct: 4.4,
        models: [
          {
            model: 'llama3:8b',
            // gpu-1's 8192 over gpu-2's 4096; offline gpu-3's 131072 does not count.
            allocated_ctx: 8192,
            request_count: 4,
            measured_requests: 3,
            // (1000 + 2000 + 3000 + 0) / 4; percentiles are the buckets' middles, never above the exact max.
            prompt_tokens: { avg: 1500, p50: 1961, p75: 3000, p95: 3000, p99: 3000, max: 3000 },
            // The 3100 of three days ago reads 3025; the last 24 hours' largest is 2500.
            total_tokens: { p95: 3025, p99: 3025, max: 3100, max_24h: 2500 },
            utilization_pct: 36.9,
            // 1.5 × 3025 → 8192, within what is allocated.
            recommended_ctx: 8192,
            savings_pct: 0,
          },
          {
            model: 'mistral:7b',
            allocated_ctx: 0,
            request_count: 1,
            measured_requests: 1,
            prompt_tokens: { avg: 700, p50: 693, p75: 693, p95: 693, p99: 693, max: 700 },
            total_tokens: { p95: 981, p99: 981, max: 1000, max_24h: 1000 },
            utilization_pct: 0,
            // 1.5 × 1000 → 2048, raised to the 4096 floor; not loaded, so nothing to cap to.
            recommended_ctx: 4096,
            savings_pct: 0,
          },
          {
            model: 'qwen3:32b',
            allocated_ctx: 32_768,
            request_count: 1,
            measured_requests: 1,
            prompt_tokens: { avg: 100, p50: 100, p75: 100, p95: 100, p99: 100, max: 100 },
            total_tokens: { p95: 120, p99: 120, max: 120, max_24h: 120 },
            utilization_pct: 0.4,
            recommended_ctx: 4096,
            savings_pct: 87.5,
          },
        ],
      });
    });

    it('reads the UTC days `days` overlaps', async () => {
      const reply = await host(routes(services), get({ days: '1' }));

      const [llama] = JSON.parse(reply.body).models;
      expect(llama).toMatchObject({
        model: 'llama3:8b',
        request_count: 2,
        prompt_tokens: { avg: 1500, p50: 981, p99: 1961, max: 2000 },
        total_tokens: { p99: 2500, max: 2500, max_24h: 2500 },
      });
    });

    it('reads 30 days with one Query per UTC day and the 24 hours before with one per day they touch', async () => {
      const partitions: string[] = [];
      const counted = createRollupReader({
        queryDocs: (pk, options) => {
          partitions.push(pk);
          return store.table.queryDocs(pk, options);
        },
      });

      const reply = await host(routes({ ...services, rollups: counted }), get({ days: '30' }));

      expect(JSON.parse(reply.body).models.map((model: { model: string }) => model.model)).toEqual([
        'llama3:8b',
        'mistral:7b',
        'qwen3:32b',
      ]);
      expect(partitions.filter((pk) => pk.startsWith('ROLLUP#D#'))).toHaveLength(31);
      expect(partitions.filter((pk) => pk.startsWith('ROLLUP#H#'))).toHaveLength(2);
      expect(partitions).toHaveLength(33);
    });

    it.each([
      ['days', { days: '-1' }],
      ['days', { days: '401' }],
      ['start_ts', { start_ts: 'now' }],
    ])('answers a bad %s with 400 naming it', async (param, query) => {
      const reply = await host(routes(services), get(query));

      expect(reply.statusCode).toBe(400);
      expect(JSON.parse(reply.body)).toEqual({ error: expect.objectContaining({ param }) });
    });
  });
});
