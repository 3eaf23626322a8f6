/**
 * `GET /dashboard/api/health` in process on both hosts, on a real table: a node gone silent is reported
 * offline (critical) in the findings and the score, every check is listed with what came of it, and the
 * report is served from the instance's cache while it is fresh.
 */

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routes } from '../../functions/dashboard';
import { HEALTH_CHECKS } from '../../lib/core/health/health-report';
import { initServices, type Services } from '../../lib/instance';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { makeNodeRecord } from '../helpers/factories';
import { HOSTS } from '../helpers/hosts';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

let store: StoreFixture;
let services: Services;

beforeAll(async () => {
  store = await startStore('dashboard-health');
  services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
  const now = Date.now();
  // One node answering, one silent for ten minutes (offline after 30 s by default).
  await services.registry.save(makeNodeRecord({ id: 'gpu1', url: 'http://127.0.0.1:9', lastSeenAt: now }));
  await services.registry.save(
    makeNodeRecord({ id: 'gpu2', url: 'http://127.0.0.1:9', firstSeenAt: now - 3_600_000, lastSeenAt: now - 600_000 }),
  );
});

afterAll(async () => {
  await closeServices(services);
  await store.close();
});

const get = () => makeHttpEvent({ method: 'GET', path: '/dashboard/api/health' });

describe('/dashboard/api/health', () => {
  describe.each(HOSTS)('%s host', (_name, host) => {
    it('reports the offline node as critical, with the vitals and the score', async () => {
      const fresh = initServices(services.config);

      const reply = await host(routes(fresh), get());

      expect(reply.statusCode).toBe(200);
      const body = JSON.parse(reply.body);
      expect(body.recommendations).toEqual([
        {
          check_id: 'node_offline',
          severity: 'critical',
          title: 'gpu2 is offline',
          description: expect.stringContaining('No good poll or heartbeat from gpu2'),
          fix: expect.any(String),
          node_id: 'gpu2',
          data: { last_seen_ago_s: expect.any(Number), last_error: null },
        },
      ]);
      expect(body.vitals).toEqual({
        nodes_total: 2,
        nodes_online: 1,
        nodes_degraded: 0,
        nodes_offline: 1,
        overall_error_rate_pct: null,
        cold_loads_24h: 0,
        avg_ttft_ms: null,
        total_requests_24h: 0,
        total_retries_24h: 0,
        client_disconnects_24h: 0,
        incomplete_streams_24h: 0,
        image_generations_24h: 0,
        transcriptions_24h: 0,
        health_score: 80,
      });
      expect(body).toMatchObject({
        router_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        checked_at: expect.any(String),
      });
      await fresh.writeBehind.close();
    });

    it('lists every check with its group, title, status and severity: failed, passed, or skipped and why', async () => {
      const fresh = initServices(services.config);

      const body = JSON.parse((await host(routes(fresh), get())).body);
      await fresh.writeBehind.close();

      const checks: { id: string; status: string }[] = body.checks;
      expect(checks.length).toBe(Object.keys(HEALTH_CHECKS).length);
      expect(body.checks_run).toBe(checks.length);
      for (const check of checks) {
        expect(check).toEqual({
          id: expect.any(String),
          group: expect.any(String),
          title: expect.any(String),
          status: expect.stringMatching(/^(passed|failed|skipped)$/),
          severity: expect.stringMatching(/^(critical|warning|info)$/),
          findings: expect.any(Number),
          reason: check.status === 'skipped' ? expect.any(String) : null,
        });
      }
      const byId = new Map(checks.map((check) => [check.id, check]));
      expect(byId.get('node_offline')).toEqual({
        id: 'node_offline',
        group: 'nodes',
        title: 'Nodes offline',
        status: 'failed',
        severity: 'critical',
        findings: 1,
        reason: null,
      });
      expect(byId.get('node_degraded')).toMatchObject({ status: 'passed', reason: null });
      // No request has been routed: the checks on traffic have nothing to judge.
      expect(byId.get('fleet_error_rate')).toMatchObject({ status: 'skipped', reason: 'no request in the last 24 h' });
      expect(checks.filter((check) => check.status === 'failed').map((check) => check.id)).toEqual(['node_offline']);
    });

    it('serves the same report to a second call within the cache window', async () => {
      const fresh = initServices(services.config);
      const table = routes(fresh);

      const first = JSON.parse((await host(table, get())).body);
      // gpu1 drains in the table: a report computed now would say so.
      await fresh.registry.save(
        makeNodeRecord({ id: 'gpu1', url: 'http://127.0.0.1:9', lastSeenAt: Date.now(), draining: true }),
      );
      const second = JSON.parse((await host(table, get())).body);
      const other = initServices(services.config);
      const recomputed = JSON.parse((await host(routes(other), get())).body);
      await other.writeBehind.close();
      await fresh.registry.save(makeNodeRecord({ id: 'gpu1', url: 'http://127.0.0.1:9', lastSeenAt: Date.now() }));

      expect(second).toEqual(first);
      expect(recomputed.recommendations.map((found: { check_id: string }) => found.check_id)).toContain(
        'node_draining',
      );
      await fresh.writeBehind.close();
    });
  });
});
