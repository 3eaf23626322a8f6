/**
 * `GET /metrics` in process on both hosts, over seeded traces and a heartbeat: the Prometheus content
 * type, the exact counters, histogram and gauges the rollups and the registry say, and the client keys
 * enforced like on every client route.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routes } from '../../functions/dashboard';
import type { Trace } from '../../lib/core/analytics/trace-record';
import { initServices, type Services } from '../../lib/instance';
import { createBufferedHandler } from '../../lib/services/http/handler';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { completedTrace, makeHeartbeat } from '../helpers/factories';
import { HOSTS } from '../helpers/hosts';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

let store: StoreFixture;
let services: Services;

const trace = (overrides: Partial<Trace>): Trace => completedTrace({ ...overrides });

beforeAll(async () => {
  store = await startStore('metrics');
  services = initServices(
    loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName, FLEET_API_KEYS: 'scrape-key' }),
  );
  services.traces.record(trace({ latencyMs: 100 }));
  services.traces.record(trace({ latencyMs: 3000, timeToFirstTokenMs: 700, retries: 1 }));
  services.traces.record(trace({ status: 'failed', latencyMs: 5, promptTokens: 0, completionTokens: 0 }));
  services.traces.record(trace({ status: 'retried', latencyMs: 5 }));
  await services.writeBehind.flush();
  await services.registry.recordHeartbeat(makeHeartbeat({ timestamp: Date.now() / 1000 }));
});

afterAll(async () => {
  await closeServices(services);
  await store.close();
});

const scrape = (headers: Record<string, string> = { authorization: 'Bearer scrape-key' }) =>
  makeHttpEvent({ method: 'GET', path: '/metrics', headers });

const line = (body: string, prefix: string) => body.split('\n').find((text) => text.startsWith(`${prefix} `));

describe('GET /metrics', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it('exposes the rollups, queues and nodes in the text format with exact values', async () => {
      const reply = await host(routes(services), scrape());

      expect(reply.statusCode).toBe(200);
      expect(reply.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      const labels = 'node_id="studio",model="llama3.2:3b"';
      expect(
        [
          `fleet_requests_total{${labels},status="completed"}`,
          `fleet_requests_total{${labels},status="failed"}`,
          `fleet_retried_attempts_total{${labels}}`,
          `fleet_retries_total{${labels}}`,
          `fleet_prompt_tokens_total{${labels}}`,
          `fleet_completion_tokens_total{${labels}}`,
          `fleet_request_duration_seconds_bucket{${labels},le="0.007"}`,
          `fleet_request_duration_seconds_bucket{${labels},le="0.127"}`,
          `fleet_request_duration_seconds_bucket{${labels},le="2.047"}`,
          `fleet_request_duration_seconds_bucket{${labels},le="4.095"}`,
          `fleet_request_duration_seconds_bucket{${labels},le="+Inf"}`,
          `fleet_request_duration_seconds_sum{${labels}}`,
          `fleet_request_duration_seconds_count{${labels}}`,
          `fleet_time_to_first_token_seconds_count{${labels}}`,
          `fleet_queue_concurrency{${labels}}`,
          'fleet_node_status{node_id="studio",status="online"}',
          'fleet_node_status{node_id="studio",status="offline"}',
          'fleet_nodes{status="online"}',
          'fleet_node_models_loaded{node_id="studio"}',
        ].map((prefix) => line(reply.body, prefix)?.split(' ')[1]),
      ).toEqual(['2', '1', '1', '1', '100', '20', '1', '2', '2', '3', '3', '3.105', '3', '3', '4', '1', '0', '1', '1']);
      expect(reply.body).toContain('# TYPE fleet_request_duration_seconds histogram\n');
    });
  });

  it('refuses a scrape without a client key, and answers one with a key', async () => {
    const handler = createBufferedHandler(routes(services), { apiKeys: services.config.apiKeys });

    const [without, withKey] = [await handler(scrape({})), await handler(scrape())];

    expect([without.statusCode, withKey.statusCode]).toEqual([401, 200]);
  });
});
