/**
 * Every health check both ways (issue 22 item 3): silent on one healthy fleet with traffic, and fired
 * by a change that makes it true — one case per check id, and a test that no check goes without one.
 */
import { describe, expect, it } from '@jest/globals';
import type { Ejection } from '../../../../lib/core/fleet/ejection';
import type { NodeRecord } from '../../../../lib/core/fleet/node';
import type { Severity } from '../../../../lib/core/health/health-finding';
import type { HealthInputs } from '../../../../lib/core/health/health-inputs';
import { HEALTH_CHECKS, runChecks } from '../../../../lib/core/health/health-report';
import { makeQueueState } from '../../../helpers/factories';
import {
  CHAT,
  EMBED,
  type FleetTrace,
  HEALTHY_RECORDS,
  healthyTraces,
  hourStart,
  IMAGE,
  inputsWith,
  NOW,
  recordsWith,
} from './healthy-fleet';

const LAST_HOUR = hourStart(23);
const inLastHour = (entry: FleetTrace) => entry.startedAt >= LAST_HOUR;

/** The healthy traces with every `every`-th one matching `where` changed. */
function tracesWith(change: Partial<FleetTrace>, where: (entry: FleetTrace) => boolean = () => true, every = 1) {
  let seen = 0;
  return healthyTraces().map((entry) => {
    if (!where(entry)) return entry;
    seen += 1;
    return seen % every === 0 ? { ...entry, ...change } : entry;
  });
}

const isChat = (entry: FleetTrace) => entry.model === CHAT;
const withoutField = (record: NodeRecord, field: 'agentVersion' | 'version'): NodeRecord => {
  const { [field]: _dropped, ...rest } = record;
  return rest;
};
const ejection = (cause: Ejection['cause']): Ejection => ({
  nodeId: 'gpu2',
  backend: 'ollama',
  at: NOW - 1000,
  until: NOW + 29_000,
  reason: 'test',
  level: 1,
  cause,
});
const queues = (overrides: Parameters<typeof makeQueueState>[0]) => [
  makeQueueState({ nodeId: 'gpu1', model: CHAT, ...overrides }),
];
const writes = (overrides: Partial<HealthInputs['writes']>) => ({ ...inputsWith().writes, ...overrides });
const failedRecent = (model: string, count: number): FleetTrace[] =>
  Array.from({ length: count }, (_, i) => ({
    startedAt: LAST_HOUR + 60_000 + i,
    nodeId: 'gpu1',
    model,
    style: 'openai-chat',
    status: 'failed',
    latencyMs: 10,
    retries: 0,
  }));
const unloaded = HEALTHY_RECORDS.map((record) => ({ ...record, loaded: [] }));
/** The healthy traces with the first `count` chats of the last hour paying a cold load. */
function recentColdLoads(count: number): FleetTrace[] {
  let seen = 0;
  return healthyTraces().map((entry) => {
    if (!isChat(entry) || !inLastHour(entry) || seen >= count) return entry;
    seen += 1;
    return { ...entry, loadMs: 3000 };
  });
}
const withoutImage = (record: NodeRecord): NodeRecord => {
  const { image: _image, ...sidecars } = record.sidecars;
  return { ...record, sidecars };
};

/** Check id → the change that fires it, and the severity it fires with. */
const CASES: Readonly<Record<string, readonly [Severity, () => HealthInputs]>> = {
  node_offline: [
    'critical',
    () => inputsWith({ records: recordsWith('gpu3', (r) => ({ ...r, lastSeenAt: NOW - 60_000 })) }),
  ],
  node_degraded: [
    'warning',
    () => inputsWith({ records: recordsWith('gpu3', (r) => ({ ...r, lastSeenAt: NOW - 20_000 })) }),
  ],
  node_draining: ['info', () => inputsWith({ records: recordsWith('gpu3', (r) => ({ ...r, draining: true })) })],
  node_poll_failing: [
    'warning',
    () =>
      inputsWith({
        records: recordsWith('gpu3', (r) => ({
          ...r,
          lastSeenAt: NOW - 5000,
          lastErrorAt: NOW,
          lastError: 'ECONNREFUSED',
        })),
      }),
  ],
  node_ejected: ['warning', () => inputsWith({ ejections: [ejection('server-error')] })],
  fleet_unavailable: [
    'critical',
    () => inputsWith({ records: HEALTHY_RECORDS.map((r) => ({ ...r, draining: true })) }),
  ],
  snapshot_stale: ['critical', () => inputsWith({ freshness: { ageMs: 90_000, refreshFailed: true } })],
  memory_pressure: [
    'critical',
    () =>
      inputsWith({
        records: recordsWith('gpu1', (r) => ({
          ...r,
          memory: { totalGb: 64, usedGb: 63, availableGb: 1, pressure: 'critical' },
        })),
      }),
  ],
  thermal_throttling: [
    'warning',
    () => inputsWith({ records: recordsWith('gpu1', (r) => ({ ...r, thermal: { state: 'serious' } })) }),
  ],
  disk_low: [
    'warning',
    () =>
      inputsWith({
        records: recordsWith('gpu1', (r) => ({ ...r, disk: { totalGb: 100, usedGb: 92, availableGb: 8 } })),
      }),
  ],
  underutilized_memory: [
    'info',
    () =>
      inputsWith({
        records: recordsWith('gpu3', (r) => ({
          ...r,
          memory: { totalGb: 64, usedGb: 10, availableGb: 54, pressure: 'normal' },
        })),
        traces: healthyTraces().filter((entry) => entry.nodeId !== 'gpu3'),
      }),
  ],
  kv_cache_heavy: [
    'warning',
    () =>
      inputsWith({
        records: recordsWith('gpu1', (r) => ({
          ...r,
          loaded: r.loaded.map((loaded) => ({ ...loaded, size: 2_019_393_189 + 24 * 2 ** 30 })),
        })),
      }),
  ],
  agent_version_mismatch: [
    'warning',
    () => inputsWith({ records: recordsWith('gpu2', (r) => ({ ...r, agentVersion: '0.6.0' })) }),
  ],
  agent_version_unknown: [
    'info',
    () => inputsWith({ records: recordsWith('gpu2', (r) => withoutField(r, 'agentVersion')) }),
  ],
  ollama_version_mismatch: [
    'info',
    () => inputsWith({ records: recordsWith('gpu2', (r) => ({ ...r, version: '0.13.1' })) }),
  ],
  ollama_version_old: [
    'warning',
    () => inputsWith({ records: recordsWith('gpu2', (r) => ({ ...r, version: '0.5.7' })) }),
  ],
  ollama_version_unknown: [
    'info',
    () => inputsWith({ records: recordsWith('gpu2', (r) => ({ ...withoutField(r, 'version'), source: 'listed' })) }),
  ],
  fleet_error_rate: ['warning', () => inputsWith({ traces: tracesWith({ status: 'failed' }, () => true, 10) })],
  high_error_rate: [
    'warning',
    () => inputsWith({ traces: tracesWith({ status: 'failed' }, (entry) => entry.nodeId === 'gpu2', 5) }),
  ],
  model_error_rate: [
    'warning',
    () => inputsWith({ traces: tracesWith({ status: 'incomplete' }, (entry) => entry.model === EMBED, 5) }),
  ],
  high_retry_rate: ['warning', () => inputsWith({ traces: tracesWith({ retries: 1 }) })],
  fallbacks_used: ['info', () => inputsWith({ traces: tracesWith({ fallbackModel: 'qwen3:8b' }, isChat, 20) })],
  client_disconnects: [
    'warning',
    () => inputsWith({ traces: tracesWith({ status: 'client_disconnected' }, isChat, 25) }),
  ],
  incomplete_streams: ['warning', () => inputsWith({ traces: tracesWith({ status: 'incomplete' }, isChat, 100) })],
  slow_ttft: [
    'warning',
    () =>
      inputsWith({
        traces: tracesWith({ timeToFirstTokenMs: 5000, latencyMs: 7000 }, (e) => isChat(e) && inLastHour(e)),
      }),
  ],
  decode_degraded: [
    'warning',
    () => inputsWith({ traces: tracesWith({ latencyMs: 10_000 }, (e) => isChat(e) && inLastHour(e)) }),
  ],
  frequent_cold_loads: ['info', () => inputsWith({ traces: tracesWith({ loadMs: 2000 }, isChat, 3) })],
  model_thrashing: [
    'warning',
    () => inputsWith({ traces: tracesWith({ loadMs: 2000 }, (entry) => isChat(entry) && entry.nodeId === 'gpu1', 5) }),
  ],
  load_timeout: ['warning', () => inputsWith({ ejections: [ejection('first-byte-timeout')] })],
  mapped_model_missing: [
    'critical',
    () => inputsWith({ config: { ...inputsWith().config, modelMap: new Map([['claude-opus-4', 'qwen3:235b']]) } }),
  ],
  mapped_model_cold: ['warning', () => inputsWith({ records: unloaded, traces: recentColdLoads(1) })],
  priority_model_not_loaded: ['warning', () => inputsWith({ records: unloaded, traces: recentColdLoads(2) })],
  requested_model_unavailable: [
    'warning',
    () => inputsWith({ traces: [...healthyTraces(), ...failedRecent('gpt-4o', 5)] }),
  ],
  no_node_for_kind: ['critical', () => inputsWith({ records: HEALTHY_RECORDS.map(withoutImage) })],
  single_point_of_failure: [
    'info',
    () => inputsWith({ records: recordsWith('gpu2', (r) => ({ ...r, sidecars: {} })) }),
  ],
  context_waste: [
    'warning',
    () =>
      inputsWith({
        records: HEALTHY_RECORDS.map((r) => ({
          ...r,
          loaded: r.loaded.map((l) => ({ ...l, contextLength: 131_072 })),
        })),
      }),
  ],
  context_overflow: [
    'warning',
    () => inputsWith({ traces: tracesWith({ promptTokens: 9000 }, (e) => isChat(e) && e.startedAt === hourStart(5)) }),
  ],
  image_failures: [
    'warning',
    () => inputsWith({ traces: tracesWith({ status: 'failed' }, (e) => e.model === IMAGE, 12) }),
  ],
  transcription_failures: [
    'warning',
    () => inputsWith({ traces: tracesWith({ status: 'failed' }, (e) => e.style === 'transcription', 12) }),
  ],
  embedding_error_rate: [
    'warning',
    () => inputsWith({ traces: tracesWith({ status: 'failed' }, (e) => e.model === EMBED && inLastHour(e)) }),
  ],
  sidecar_without_models: [
    'warning',
    () =>
      inputsWith({
        records: recordsWith('gpu3', (r) => ({
          ...r,
          sidecars: { image: { port: 8090, url: 'http://gpu3:8090', models: [], busy: false } },
        })),
      }),
  ],
  sidecar_busy_queue: [
    'info',
    () =>
      inputsWith({
        records: recordsWith('gpu1', (r) => ({
          ...r,
          sidecars: {
            image: { port: 8090, url: 'http://gpu1:8090', models: [{ name: IMAGE, kind: 'image' }], busy: true },
          },
        })),
        queues: [makeQueueState({ nodeId: 'gpu1', model: IMAGE, pending: 2, inFlight: 1 })],
      }),
  ],
  queue_saturation: ['warning', () => inputsWith({ queues: queues({ pending: 4, inFlight: 2, concurrency: 2 }) })],
  requests_rejected: ['warning', () => inputsWith({ queues: queues({ rejected: 3 }) })],
  queue_timeouts: ['warning', () => inputsWith({ queues: queues({ timedOut: 2 }) })],
  node_at_capacity: ['info', () => inputsWith({ queues: queues({ pending: 1, inFlight: 2, concurrency: 2 }) })],
  table_write_failures: ['warning', () => inputsWith({ writes: writes({ failedFlushes: 3 }) })],
  table_writes_rejected: ['warning', () => inputsWith({ writes: writes({ rejected: 1 }) })],
  write_backlog: ['warning', () => inputsWith({ writes: writes({ pending: 5000 }) })],
  analytics_unreadable: ['critical', () => inputsWith({ trafficReadFailed: true, traces: [] })],
};

const SEVERITY_RANK: Readonly<Record<Severity, number>> = { critical: 0, warning: 1, info: 2 };

describe('health checks', () => {
  it('find nothing on a healthy fleet with traffic', () => {
    expect(runChecks(inputsWith())).toEqual([]);
  });

  it('are 30 or more, and every one has a case that fires it', () => {
    expect(Object.keys(HEALTH_CHECKS).length).toBeGreaterThanOrEqual(30);
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(HEALTH_CHECKS).sort());
  });

  it('leave a node agent that does not report its Ollama version alone (the reference agent never does)', () => {
    const inputs = inputsWith({ records: HEALTHY_RECORDS.map((record) => withoutField(record, 'version')) });

    expect(runChecks(inputs)).toEqual([]);
  });

  it('say a listed node that never answered never did, rather than counting the time since 1970', () => {
    const [finding] =
      HEALTH_CHECKS['node_offline']?.run(
        inputsWith({ records: recordsWith('gpu3', (r) => ({ ...r, lastSeenAt: 0 })) }),
      ) ?? [];

    expect(finding?.description).toBe('gpu3 has never answered a poll or sent a heartbeat; it takes no work.');
    expect(finding?.data).toMatchObject({ last_seen_ago_s: null });
  });

  it.each(Object.entries(CASES))('%s fires when it is true', (checkId, [severity, inputs]) => {
    const check = HEALTH_CHECKS[checkId];
    if (check === undefined) throw new Error(`no check ${checkId}`);

    // Through runChecks, so a check that would skip these inputs fires nothing and fails here.
    const findings = runChecks(inputs(), { [checkId]: check });

    expect(findings).toContainEqual(expect.objectContaining({ check_id: checkId, severity }));
    // A check never raises more than the severity it declares (the report lists that for a passed one).
    expect(findings.every((found) => SEVERITY_RANK[found.severity] >= SEVERITY_RANK[check.severity])).toBe(true);
    for (const found of findings) {
      expect(found).toEqual({
        check_id: checkId,
        severity: expect.any(String),
        title: expect.any(String),
        description: expect.any(String),
        fix: expect.any(String),
        node_id: found.node_id === null ? null : expect.any(String),
        data: expect.any(Object),
      });
    }
  });
});
