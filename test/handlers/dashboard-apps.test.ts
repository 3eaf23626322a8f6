/**
 * `GET /dashboard/api/apps` and `/apps/daily` (and the reference's `/tags`, `/tags/daily`) in process on
 * both hosts, on dynalite: traces recorded through the instance's recorder and written behind, read back
 * per tag over `days` or `start_ts`/`end_ts` with exact figures; a bad parameter is a 400 naming it.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routes } from '../../functions/dashboard';
import type { Trace } from '../../lib/core/analytics/trace-record';
import { initServices, type Services } from '../../lib/instance';
import { createRollupReader } from '../../lib/services/analytics/rollup-reader';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { HOSTS } from '../helpers/hosts';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.now();
const RECENT = NOW - HOUR;
const OLDER = NOW - 3 * DAY;
const dayOf = (at: number) => Math.floor(at / DAY) * DAY;

let store: StoreFixture;
let services: Services;

const trace = (overrides: Partial<Trace>): Trace => ({
  requestId: 'r',
  startedAt: RECENT,
  style: 'openai-chat',
  status: 'completed',
  requestedModel: 'llama3:8b',
  servedModel: 'llama3:8b',
  nodeId: 'gpu-1',
  latencyMs: 1000,
  retries: 0,
  tags: [],
  clientIp: '127.0.0.1',
  ...overrides,
});

// The applications fair sharing counted them for (issue 43): a key's, a tag's, a client's.
const TRACES = [
  trace({
    timeToFirstTokenMs: 100,
    promptTokens: 100,
    completionTokens: 10,
    tags: ['app:a', 'user:bo'],
    app: 'key:0a1b2c3d',
  }),
  trace({ status: 'failed', latencyMs: 3000, tags: ['app:a'], app: 'key:0a1b2c3d' }),
  trace({
    startedAt: OLDER,
    latencyMs: 2000,
    timeToFirstTokenMs: 300,
    promptTokens: 200,
    completionTokens: 20,
    tags: ['app:a'],
    app: 'tag:app:a',
  }),
  trace({ tags: [], app: 'client:127.0.0.1' }),
];

beforeAll(async () => {
  store = await startStore('dashboard-apps');
  services = initServices(
    loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName, FLEET_API_KEYS: 'secret' }),
  );
  for (const entry of TRACES) services.traces.record(entry);
  await services.writeBehind.flush();
});

afterAll(async () => {
  await closeServices(services);
  await store.close();
});

const get = (path: string, query: Record<string, string> = {}) =>
  makeHttpEvent({ method: 'GET', path, query, headers: { authorization: 'Bearer secret' } });

const APP_A = {
  tag: 'app:a',
  request_count: 3,
  completed_count: 2,
  failed_count: 1,
  incomplete_count: 0,
  client_disconnected_count: 0,
  error_rate_pct: 33.3,
  avg_latency_ms: 2000,
  // 1000, 2000 and 3000 ms read as their buckets' middles (within 4.4 %).
  p50_latency_ms: 1961,
  p95_latency_ms: 3025,
  avg_ttft_ms: 200,
  total_prompt_tokens: 300,
  total_completion_tokens: 30,
  total_tokens: 330,
  first_seen: dayOf(OLDER) / 1000,
  last_seen: RECENT / 1000,
};

const USER_BO = {
  tag: 'user:bo',
  request_count: 1,
  completed_count: 1,
  failed_count: 0,
  incomplete_count: 0,
  client_disconnected_count: 0,
  error_rate_pct: 0,
  avg_latency_ms: 1000,
  p50_latency_ms: 981,
  p95_latency_ms: 981,
  avg_ttft_ms: 100,
  total_prompt_tokens: 100,
  total_completion_tokens: 10,
  total_tokens: 110,
  first_seen: dayOf(RECENT) / 1000,
  last_seen: RECENT / 1000,
};

describe('/dashboard/api/apps', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it('sums each tag over the last 7 days, most requests first, with the summary and the percentile bound', async () => {
      const reply = await host(routes(services), get('/dashboard/api/apps'));

      expect(reply.statusCode).toBe(200);
      expect(JSON.parse(reply.body)).toEqual({
        days: 7,
        percentile_error_pct: 4.4,
        data: [APP_A, USER_BO],
        summary: { tag_count: 2, top_tag: 'app:a', request_count: 4, total_tokens: 440 },
      });
    });

    it('sums each application as fair sharing counted it, each request once, with by=application', async () => {
      const reply = await host(routes(services), get('/dashboard/api/apps', { by: 'application' }));
      const daily = await host(routes(services), get('/dashboard/api/apps/daily', { by: 'application' }));

      const body = JSON.parse(reply.body);
      expect(reply.statusCode).toBe(200);
      expect(body.data.map((row: Record<string, unknown>) => [row['application'], row['request_count']])).toEqual([
        ['key:0a1b2c3d', 2],
        ['client:127.0.0.1', 1],
        ['tag:app:a', 1],
      ]);
      expect(body.data[0]).toMatchObject({ completed_count: 1, failed_count: 1, total_tokens: 110 });
      expect(body.data[0]).not.toHaveProperty('tag');
      expect(body.summary).toEqual({
        application_count: 3,
        top_application: 'key:0a1b2c3d',
        request_count: 4,
        // Each request once: the two-tag request's tokens are not counted twice, as per tag they are.
        total_tokens: 330,
      });
      expect(
        JSON.parse(daily.body).data.map((row: Record<string, unknown>) => [row['date'], row['application']]),
      ).toEqual([
        [new Date(OLDER).toISOString().slice(0, 10), 'tag:app:a'],
        [new Date(RECENT).toISOString().slice(0, 10), 'client:127.0.0.1'],
        [new Date(RECENT).toISOString().slice(0, 10), 'key:0a1b2c3d'],
      ]);
    });

    it('refuses a grouping it does not know, naming by', async () => {
      const reply = await host(routes(services), get('/dashboard/api/apps', { by: 'team' }));

      expect(reply.statusCode).toBe(400);
      expect(JSON.parse(reply.body).error).toMatchObject({ message: 'by must be tag or application, got "team"' });
    });

    it('answers the same at the reference’s /dashboard/api/tags', async () => {
      const apps = await host(routes(services), get('/dashboard/api/apps'));
      const tags = await host(routes(services), get('/dashboard/api/tags'));

      expect(tags.statusCode).toBe(200);
      expect(JSON.parse(tags.body)).toEqual(JSON.parse(apps.body));
    });

    it('reads the UTC days `days` overlaps, whole', async () => {
      const reply = await host(routes(services), get('/dashboard/api/apps', { days: '1' }));

      const body = JSON.parse(reply.body);
      expect(body.days).toBe(1);
      expect(
        body.data.map((entry: { tag: string; request_count: number }) => [entry.tag, entry.request_count]),
      ).toEqual([
        ['app:a', 2],
        ['user:bo', 1],
      ]);
    });

    it('reads the window start_ts and end_ts name', async () => {
      const query = { start_ts: String((OLDER - 60_000) / 1000), end_ts: String((OLDER + 60_000) / 1000) };

      const reply = await host(routes(services), get('/dashboard/api/apps', query));

      const body = JSON.parse(reply.body);
      expect(body.days).toBe(1);
      expect(body.data).toEqual([
        expect.objectContaining({ tag: 'app:a', request_count: 1, total_tokens: 220, last_seen: OLDER / 1000 }),
      ]);
    });

    it('shows each tag per UTC day, oldest first', async () => {
      const reply = await host(routes(services), get('/dashboard/api/apps/daily'));

      const body = JSON.parse(reply.body);
      expect(body.days).toBe(7);
      expect(
        body.data.map((day: Record<string, unknown>) => [
          day['day_bucket'],
          day['date'],
          day['tag'],
          day['request_count'],
          day['total_tokens'],
          day['avg_latency_ms'],
        ]),
      ).toEqual([
        [dayOf(OLDER) / 1000, new Date(OLDER).toISOString().slice(0, 10), 'app:a', 1, 220, 2000],
        [dayOf(RECENT) / 1000, new Date(RECENT).toISOString().slice(0, 10), 'app:a', 2, 110, 2000],
        [dayOf(RECENT) / 1000, new Date(RECENT).toISOString().slice(0, 10), 'user:bo', 1, 110, 1000],
      ]);
      const alias = await host(routes(services), get('/dashboard/api/tags/daily'));
      expect(JSON.parse(alias.body)).toEqual(body);
    });

    it('reads 30 days with one Query per UTC day, whatever the traffic', async () => {
      const partitions: string[] = [];
      const counted = createRollupReader({
        queryDocs: (pk, options) => {
          partitions.push(pk);
          return store.table.queryDocs(pk, options);
        },
      });

      const reply = await host(routes({ ...services, rollups: counted }), get('/dashboard/api/apps', { days: '30' }));

      expect(JSON.parse(reply.body).data.map((entry: { tag: string }) => entry.tag)).toEqual(['app:a', 'user:bo']);
      // A window of 30 days back from now overlaps 31 UTC days.
      expect(partitions).toHaveLength(31);
      expect(new Set(partitions).size).toBe(31);
    });

    it.each([
      ['days', { days: '0' }],
      ['days', { days: 'week' }],
      ['start_ts', { start_ts: 'yesterday' }],
      ['end_ts', { end_ts: '-5' }],
      ['start_ts', { start_ts: String(NOW / 1000), end_ts: String(NOW / 1000 - 60) }],
    ])('answers a bad %s with 400 naming it', async (param, query) => {
      for (const path of ['/dashboard/api/apps', '/dashboard/api/apps/daily']) {
        const reply = await host(routes(services), get(path, query));

        expect(reply.statusCode).toBe(400);
        expect(JSON.parse(reply.body)).toEqual({
          error: expect.objectContaining({ param, type: 'invalid_request_error' }),
        });
      }
    });
  });
});
