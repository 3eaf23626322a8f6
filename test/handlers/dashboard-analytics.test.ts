/**
 * `GET /dashboard/api/{overview,traces,usage,models,trends}` in process on both hosts, over traces
 * recorded by the real recorder and written behind to dynalite: the figures are exact, and a bad parameter
 * is a 400 naming it. (The API key is checked by the handler wrapper, tested with it.)
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routes } from '../../functions/dashboard';
import type { Trace } from '../../lib/core/analytics/trace-record';
import { initServices, type Services } from '../../lib/instance';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { HOSTS } from '../helpers/hosts';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

const HOUR = 3_600_000;
/** The start of the current UTC hour: every trace is in this hour and this day. */
const AT = Math.floor(Date.now() / HOUR) * HOUR;

let store: StoreFixture;
let services: Services;

const trace = (requestId: string, overrides: Partial<Trace>): Trace => ({
  requestId,
  startedAt: AT,
  style: 'openai-chat',
  status: 'completed',
  requestedModel: 'llama3:8b',
  servedModel: 'llama3:8b',
  nodeId: 'gpu-1',
  latencyMs: 1000,
  retries: 0,
  tags: [],
  clientIp: '10.0.0.9',
  ...overrides,
});

beforeAll(async () => {
  store = await startStore('dashboard-analytics');
  services = initServices(
    loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName, FLEET_API_KEYS: 'k1' }),
  );
  services.traces.record(
    trace('r1', {
      timeToFirstTokenMs: 100,
      promptTokens: 100,
      completionTokens: 11,
      tags: ['app:ide'],
      promptEvalMs: 50,
      evalMs: 100.5,
      promptEstimateTokens: 400,
    }),
  );
  services.traces.record(
    trace('r2-attempt', { status: 'retried', nodeId: 'gpu-2', latencyMs: 20, error: 'node gpu-2 failed' }),
  );
  services.traces.record(
    trace('r2', {
      latencyMs: 3000,
      timeToFirstTokenMs: 300,
      promptTokens: 200,
      completionTokens: 21,
      retries: 1,
      promptEvalMs: 50,
      evalMs: 219.5,
    }),
  );
  services.traces.record(trace('r3', { status: 'failed', nodeId: 'gpu-2', latencyMs: 50, error: 'boom' }));
  await services.writeBehind.flush();
});

afterAll(async () => {
  await closeServices(services);
  await store.close();
});

const get = (route: string, query: Record<string, string> = {}, key = 'k1') =>
  makeHttpEvent({ method: 'GET', path: `/dashboard/api/${route}`, query, headers: { authorization: `Bearer ${key}` } });

describe('/dashboard/api analytics', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it('overview: all-time totals, the last 24 hours, the fleet and the queues', async () => {
      const reply = await host(routes(services), get('overview'));

      expect(reply.statusCode).toBe(200);
      expect(JSON.parse(reply.body)).toMatchObject({
        total_requests: 3,
        total_prompt_tokens: 300,
        total_completion_tokens: 32,
        total_tokens: 332,
        models_count: 1,
        last_24h: {
          requests: 3,
          completed: 2,
          errors: 1,
          error_rate_pct: 33.3,
          avg_latency_ms: 1350,
          p95_latency_ms: 3024.5,
          avg_ttft_ms: 200,
          retries: 1,
          // 300 prompt tokens in 100 ms of the nodes' own time, 32 answer tokens in 320 ms
          prefill_tokens_per_second: 3000,
          decode_tokens_per_second: 100,
          // r1 only has the router's estimate: 1 − 100 / 400
          prompt_cache: { share_pct: 75, source: 'estimated', estimated_requests: 1, measured_pct: null },
        },
        nodes: { total: 0, online: 0, degraded: 0, offline: 0 },
        in_flight: 0,
        pending: 0,
      });
    });

    it('traces: newest first, every recorded field in the reference shape', async () => {
      const reply = await host(routes(services), get('traces'));

      const body = JSON.parse(reply.body);
      expect(body.traces.map((entry: { request_id: string }) => entry.request_id)).toEqual([
        'r3',
        'r2',
        'r2-attempt',
        'r1',
      ]);
      expect(body.traces[3]).toEqual({
        request_id: 'r1',
        model: 'llama3:8b',
        original_model: 'llama3:8b',
        node_id: 'gpu-1',
        score: null,
        scores_breakdown: null,
        status: 'completed',
        latency_ms: 1000,
        time_to_first_token_ms: 100,
        prompt_tokens: 100,
        completion_tokens: 11,
        retry_count: 0,
        fallback_used: false,
        fallback_model: null,
        excluded_nodes: [],
        client_ip: '10.0.0.9',
        original_format: 'openai-chat',
        error_message: null,
        timestamp: AT / 1000,
        tags: ['app:ide'],
        finish_reason: null,
        context: null,
        cached_tokens: null,
        load_ms: null,
        prompt_eval_ms: 50,
        eval_ms: 100.5,
        prompt_estimate_tokens: 400,
        table_wait_ms: null,
        queue_wait_ms: null,
        priority: null,
        app: null,
        key: null,
        benchmark_run_id: null,
      });
      expect(body).toMatchObject({ limit: 20, partial: false });
    });

    it('traces: limit and filters', async () => {
      const limited = JSON.parse((await host(routes(services), get('traces', { limit: '1' }))).body);
      const failed = JSON.parse((await host(routes(services), get('traces', { status: 'failed' }))).body);
      const onNode = JSON.parse((await host(routes(services), get('traces', { node_id: 'gpu-2' }))).body);

      expect(limited.traces.map((entry: { request_id: string }) => entry.request_id)).toEqual(['r3']);
      expect(failed.traces.map((entry: { request_id: string }) => entry.request_id)).toEqual(['r3']);
      expect(onNode.traces.map((entry: { request_id: string }) => entry.request_id)).toEqual(['r3', 'r2-attempt']);
    });

    it('usage: one row per day × node × model with exact sums and averages', async () => {
      const reply = await host(routes(services), get('usage'));

      const body = JSON.parse(reply.body);
      expect(body.days).toBe(7);
      expect(body.data).toEqual([
        expect.objectContaining({
          node_id: 'gpu-1',
          model_name: 'llama3:8b',
          day_bucket: Math.floor(AT / 86_400_000) * 86_400,
          request_count: 2,
          completed_count: 2,
          failed_count: 0,
          avg_latency_ms: 2000,
          avg_ttft_ms: 200,
          total_prompt_tokens: 300,
          total_completion_tokens: 32,
          total_retries: 1,
          prefill_tokens_per_second: 3000,
          decode_tokens_per_second: 100,
        }),
        expect.objectContaining({
          node_id: 'gpu-2',
          request_count: 1,
          failed_count: 1,
          retried_attempts: 1,
          avg_latency_ms: 50,
          avg_ttft_ms: null,
          total_prompt_tokens: 0,
          prefill_tokens_per_second: null,
        }),
      ]);
      // Per node and for the fleet over the window, from the same day rollups.
      expect(body.nodes).toEqual([
        expect.objectContaining({
          node_id: 'gpu-1',
          request_count: 2,
          prefill_tokens_per_second: 3000,
          decode_tokens_per_second: 100,
          prompt_cache: expect.objectContaining({ share_pct: 75, source: 'estimated' }),
        }),
        expect.objectContaining({ node_id: 'gpu-2', request_count: 1, decode_tokens_per_second: null }),
      ]);
      expect(body.fleet).toMatchObject({
        request_count: 3,
        prefill_tokens_per_second: 3000,
        decode_tokens_per_second: 100,
        prompt_cache: { share_pct: 75, source: 'estimated' },
      });
    });

    it('models: daily rows and a summary with percentiles', async () => {
      const reply = await host(routes(services), get('models', { days: '30' }));

      const body = JSON.parse(reply.body);
      expect(body).toMatchObject({ days: 30, percentile_error_pct: 4.4 });
      expect(body.daily).toEqual([expect.objectContaining({ model_name: 'llama3:8b', request_count: 3 })]);
      expect(body.summary).toEqual([
        expect.objectContaining({
          model_name: 'llama3:8b',
          total_requests: 3,
          completed_count: 2,
          error_count: 1,
          avg_latency_ms: 1350,
          latency_ms: { p50: 980.6, p75: 3024.5, p95: 3024.5, p99: 3024.5 },
          ttft_ms: { p50: 103.1, p75: 291.5, p95: 291.5, p99: 291.5 },
          // (1000 − 100) + (3000 − 300) ms decoding 10 + 20 tokens
          tokens_per_second: 8.3,
          nodes: ['gpu-1', 'gpu-2'],
          first_seen: Math.floor(AT / 86_400_000) * 86_400,
        }),
      ]);
    });

    it('trends: every hour of the window, this one with the requests', async () => {
      const reply = await host(routes(services), get('trends'));

      const body = JSON.parse(reply.body);
      expect(body.hours).toBe(24);
      const buckets = body.data.map((entry: { hour_bucket: number }) => entry.hour_bucket);
      expect(buckets.at(-1)).toBe(AT / 1000);
      expect(buckets.slice(1).map((bucket: number, index: number) => bucket - buckets[index])).toEqual(
        Array(buckets.length - 1).fill(3600),
      );
      expect(body.data.at(-1)).toMatchObject({
        request_count: 3,
        error_count: 1,
        avg_latency_ms: 1350,
        p50_latency_ms: 980.6,
        total_prompt_tokens: 300,
      });
      expect(body.data[0]).toMatchObject({ request_count: 0, avg_latency_ms: null });
    });

    it.each([
      ['usage', { days: 'seven' }, 'days'],
      ['models', { days: '0' }, 'days'],
      ['trends', { hours: '100000' }, 'hours'],
      ['usage', { start_ts: 'yesterday' }, 'start_ts'],
      ['models', { end_ts: '-5' }, 'end_ts'],
      ['traces', { limit: '501' }, 'limit'],
      ['traces', { status: 'lost' }, 'status'],
      ['traces', { benchmark: 'yes' }, 'benchmark'],
    ])('%s answers %j with 400 naming %s', async (route, query, param) => {
      const reply = await host(routes(services), get(route, query));

      expect(reply.statusCode).toBe(400);
      expect(JSON.parse(reply.body)).toEqual({ error: expect.objectContaining({ param }) });
    });
  });
});
