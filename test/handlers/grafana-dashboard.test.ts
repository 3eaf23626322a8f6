/**
 * The Grafana dashboard shipped in deploy/grafana (issue 44 item 3) against a real `/metrics` answer: every
 * metric its queries and variables name is one the router exports (a renamed metric, or a typo, fails
 * here rather than as an empty panel), every label they group or filter by is one the router writes,
 * and the file imports anywhere: a `DS_PROMETHEUS` datasource input every panel and variable uses.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routes } from '../../functions/dashboard';
import type { Trace } from '../../lib/core/analytics/trace-record';
import { initServices, type Services } from '../../lib/instance';
import { createBufferedHandler } from '../../lib/services/http/handler';
import { loadConfig } from '../../lib/services/platform/config';
import { closeServices } from '../helpers/close-services';
import { makeHttpEvent } from '../helpers/events';
import { completedTrace, makeHeartbeat } from '../helpers/factories';
import { type StoreFixture, startStore } from '../helpers/store-fixture';

/** How Grafana's export names an import input: the dashboard's datasource, chosen when it is imported. */
const DATASOURCE_INPUT = ['${', 'DS_PROMETHEUS', '}'].join('');
const DASHBOARD = join(__dirname, '..', '..', 'deploy', 'grafana', 'fleet-router.json');

interface Target {
  readonly expr: string;
  readonly datasource?: { readonly uid?: string };
}
interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly datasource?: { readonly type?: string; readonly uid?: string };
  readonly targets?: readonly Target[];
}
interface Dashboard {
  readonly __inputs: readonly { readonly name: string; readonly type: string; readonly pluginId: string }[];
  readonly schemaVersion: number;
  readonly panels: readonly Panel[];
  readonly templating: {
    readonly list: readonly {
      readonly name: string;
      readonly definition: string;
      readonly datasource: { uid: string };
    }[];
  };
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;

/** PromQL words that are not metric names: aggregations, functions' keywords, set operators. */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
]);

/** The metric names a PromQL expression (or a `label_values(metric, label)` query) reads. */
function metricNames(expression: string): string[] {
  const bare = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // string literals
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // ranges
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // grouping labels
    .replace(/label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,[^)]*\)/g, ' $1 '); // a variable's query
  const names = new Set<string>();
  for (const match of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(?=\s*(\()?)/g)) {
    const [word, call] = [match[0], match[1]];
    if (call !== undefined || KEYWORDS.has(word)) continue;
    if (bare[(match.index ?? 0) - 1] === '$') continue; // a Grafana variable such as $__rate_interval
    names.add(word);
  }
  return [...names];
}

/** The label names an expression groups or filters by. */
function labelNames(expression: string): string[] {
  const bare = expression.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const names = new Set<string>();
  for (const [, labels] of bare.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) {
    for (const name of (labels ?? '').split(',')) if (name.trim() !== '') names.add(name.trim());
  }
  for (const [, matchers] of bare.matchAll(/\{([^}]*)\}/g)) {
    for (const [, name] of (matchers ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)) {
      names.add(name as string);
    }
  }
  return [...names];
}

const queries = [
  ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
  ...dashboard.templating.list.map((variable) => variable.definition),
];

let store: StoreFixture;
let services: Services;
/** Sample names and label names in the router's answer. */
let exported: Set<string>;
let exportedLabels: Set<string>;

const trace = (overrides: Partial<Trace>): Trace =>
  completedTrace({ latencyMs: 300, timeToFirstTokenMs: 40, ...overrides });

beforeAll(async () => {
  store = await startStore('grafana-dashboard');
  services = initServices(loadConfig({ FLEET_DYNAMODB_ENDPOINT: store.endpoint, FLEET_TABLE: store.tableName }));
  services.traces.record(trace({}));
  services.traces.record(trace({ status: 'failed', latencyMs: 5, fallbackModel: 'qwen3:8b', retries: 1 }));
  services.traces.record(trace({ status: 'retried', latencyMs: 5 }));
  await services.writeBehind.flush();
  await services.registry.recordHeartbeat(makeHeartbeat({ timestamp: Date.now() / 1000 }));
  const reply = await createBufferedHandler(routes(services))(makeHttpEvent({ method: 'GET', path: '/metrics' }));
  expect(reply.statusCode).toBe(200);
  const samples = reply.body.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  exported = new Set(samples.map((line) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? ''));
  exportedLabels = new Set(
    samples.flatMap((line) => [...line.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)].map((m) => m[1] ?? '')),
  );
});

afterAll(async () => {
  await closeServices(services);
  await store.close();
});

describe('deploy/grafana/fleet-router.json', () => {
  it('reads the names a query names, and only those', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le, model) (rate(fleet_x_bucket{model=~"$model", status="a b"}[$__rate_interval])))',
      ),
    ).toEqual(['fleet_x_bucket']);
    expect(metricNames('sum(rate(a_total[5m])) / sum(rate(b_total[5m])) > bool 0')).toEqual(['a_total', 'b_total']);
    expect(metricNames('label_values(fleet_node_status, node_id)')).toEqual(['fleet_node_status']);
    expect(labelNames('sum by (le, model) (x{node_id=~"$node", status!="y"})').sort()).toEqual([
      'le',
      'model',
      'node_id',
      'status',
    ]);
  });

  it('names only metrics the router exports, and shows every kind it exports', () => {
    const named = new Set(queries.flatMap(metricNames));

    expect([...named].filter((name) => !exported.has(name))).toEqual([]);
    // The router exports what the panels are for: requests, failures, latency and TTFT, queues, nodes.
    for (const name of [
      'fleet_requests_total',
      'fleet_request_duration_seconds_bucket',
      'fleet_time_to_first_token_seconds_bucket',
      'fleet_queue_pending',
      'fleet_node_status',
      'fleet_nodes',
    ]) {
      expect(named).toContain(name);
    }
  });

  it('groups and filters by labels the router writes', () => {
    const used = new Set(queries.flatMap(labelNames));

    expect([...used].filter((name) => !exportedLabels.has(name))).toEqual([]);
  });

  it('takes its Prometheus as an import input, used by every panel, query and variable', () => {
    expect(dashboard.__inputs).toEqual([
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }),
    ]);
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    const panels = dashboard.panels.filter((panel) => panel.type !== 'row');
    expect(panels.length).toBeGreaterThan(10);
    for (const panel of panels) {
      expect({ panel: panel.title, uid: panel.datasource?.uid }).toEqual({
        panel: panel.title,
        uid: DATASOURCE_INPUT,
      });
      expect(panel.targets?.length ?? 0).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.datasource?.uid).toBe(DATASOURCE_INPUT);
    }
    for (const variable of dashboard.templating.list) expect(variable.datasource.uid).toBe(DATASOURCE_INPUT);
    expect(new Set(dashboard.panels.map((panel) => panel.id)).size).toBe(dashboard.panels.length);
  });
});
