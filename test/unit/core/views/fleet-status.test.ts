import { describe, expect, it } from '@jest/globals';
import { toFleetStatus } from '../../../../lib/core/views/fleet-status';
import { makeNodeRecord, T0 } from '../../../helpers/factories';
import { gpu3, smallFleet, studio } from '../../../helpers/small-fleet';

describe('toFleetStatus', () => {
  it('reports totals, every node (offline too) and the queues', () => {
    const queues = [{ nodeId: 'studio', model: 'qwen3:32b', pending: 1, inFlight: 1, concurrency: 4 }];

    expect(toFleetStatus(smallFleet([studio, gpu3]), queues, T0)).toEqual({
      fleet: {
        nodes_total: 2,
        nodes_online: 1,
        nodes_degraded: 0,
        nodes_offline: 1,
        models_loaded: 1,
        models_available: 6,
        requests_active: 1,
      },
      nodes: [
        {
          node_id: 'gpu3',
          status: 'offline',
          source: 'listed',
          url: 'http://10.0.0.7:11434',
          version: '0.12.6',
          agent_version: null,
          last_seen: '2024-12-31T23:59:20.000Z',
          seconds_since_seen: 40,
          last_error: 'connect ECONNREFUSED 10.0.0.7:11434',
          draining: false,
          hardware: {
            chip: null,
            arch: null,
            cores_physical: null,
            memory_total_gb: null,
            memory_bandwidth_gbps: null,
          },
          memory: null,
          cpu: null,
          thermal: null,
          disk: null,
          ollama: {
            models_loaded: [
              { name: 'mistral:7b', size_gb: 3.18, context_length: 8192, expires_at: '2025-01-01T00:05:00.000Z' },
            ],
            models_available: ['mistral:7b'],
            requests_active: 0,
            num_parallel: 1,
          },
        },
        {
          node_id: 'studio',
          status: 'online',
          source: 'agent',
          url: 'http://10.0.0.9:11434',
          version: '0.12.6',
          agent_version: '0.9.2',
          last_seen: '2024-12-31T23:59:57.500Z',
          seconds_since_seen: 2.5,
          draining: false,
          hardware: {
            chip: 'Apple M2 Ultra',
            arch: 'apple_silicon',
            cores_physical: 24,
            memory_total_gb: 192,
            memory_bandwidth_gbps: 800,
          },
          memory: { total_gb: 192, used_gb: 80.5, available_gb: 111.5, pressure: 'normal' },
          cpu: { cores_physical: 24, utilization_pct: 12.5 },
          thermal: { state: 'unknown', temperature_c: null },
          disk: { total_gb: 1858.2, used_gb: 912.4, available_gb: 945.8 },
          ollama: {
            models_loaded: [{ name: 'qwen3:32b', size_gb: 20, context_length: 8192, expires_at: null }],
            models_available: ['qwen3:32b'],
            requests_active: 1,
            num_parallel: 4,
          },
          image: {
            port: 11436,
            url: 'http://10.0.0.9:11436',
            models_available: [
              { name: 'z-image-turbo', kind: 'image', binary: 'mflux-generate-z-image-turbo' },
              { name: 'sd3-medium', kind: 'image', binary: 'diffusionkit-cli' },
            ],
            busy: true,
          },
          transcription: {
            port: 11437,
            url: 'http://10.0.0.9:11437',
            models_available: [{ name: 'qwen3-asr', kind: 'transcription', binary: 'mlx-qwen3-asr' }],
            busy: false,
          },
          text_embedding: {
            port: 11439,
            url: 'http://10.0.0.9:11439',
            models_available: [
              { name: 'nomic-embed-text', kind: 'embedding', dimensions: 768 },
              { name: 'bge-reranker-base', kind: 'rerank', dimensions: 0 },
            ],
            busy: false,
          },
        },
      ],
      queues: {
        'studio:qwen3:32b': { node_id: 'studio', model: 'qwen3:32b', pending: 1, in_flight: 1, concurrency: 4 },
      },
      snapshot_age_ms: null,
      snapshot_refresh_failed: false,
      timestamp: T0 / 1000,
    });
  });

  it('counts degraded nodes apart and their models in the totals', () => {
    const status = toFleetStatus(smallFleet(), [], T0);

    expect(status.fleet).toEqual({
      nodes_total: 4,
      nodes_online: 2,
      nodes_degraded: 1,
      nodes_offline: 1,
      models_loaded: 3,
      // llama3.2:3b, nomic-embed-text:latest, x/flux2-klein:latest, qwen3:32b + 5 sidecar models.
      models_available: 9,
      requests_active: 3,
    });
    expect(status.nodes.map((node) => node.node_id)).toEqual(['gpu1', 'gpu2', 'gpu3', 'studio']);
    expect(status.nodes[1]?.last_error).toBe('timeout');
    expect(status.queues).toEqual({});
  });

  it('reports a listed node that never answered without a last-seen time', () => {
    const neverSeen = makeNodeRecord({ id: 'gpu9', lastSeenAt: 0, models: [], loaded: [], lastError: 'timeout' });

    const [node] = toFleetStatus(smallFleet([neverSeen]), [], T0).nodes;

    expect(node).toMatchObject({ status: 'offline', last_seen: null, seconds_since_seen: null, last_error: 'timeout' });
  });

  it('reports an empty fleet', () => {
    expect(toFleetStatus(smallFleet([]), [], T0 + 1_500)).toEqual({
      fleet: {
        nodes_total: 0,
        nodes_online: 0,
        nodes_degraded: 0,
        nodes_offline: 0,
        models_loaded: 0,
        models_available: 0,
        requests_active: 0,
      },
      nodes: [],
      queues: {},
      snapshot_age_ms: null,
      snapshot_refresh_failed: false,
      timestamp: T0 / 1000 + 1,
    });
  });

  it('shows per node whether it is ejected, until when and why, which instance saw it, and its failures in a row', () => {
    const health = [
      {
        nodeId: 'studio',
        backend: 'ollama',
        consecutiveFailures: 0,
        ejection: {
          at: T0 - 2_000,
          until: T0 + 30_000,
          reason: 'could not connect: ECONNREFUSED',
          level: 1,
          cause: 'connect',
          by: 'instance-b',
        },
      },
      { nodeId: 'gpu3', backend: 'ollama', consecutiveFailures: 2 },
      { nodeId: 'studio', backend: 'image', consecutiveFailures: 1 },
    ];

    const nodes = toFleetStatus(smallFleet([studio, gpu3]), [], T0, health).nodes;
    const plain = toFleetStatus(smallFleet([studio]), [], T0).nodes;

    expect(nodes.find((node) => node.node_id === 'studio')?.ejection).toEqual({
      ejected: true,
      until: new Date(T0 + 30_000).toISOString(),
      reason: 'could not connect: ECONNREFUSED',
      level: 1,
      since: new Date(T0 - 2_000).toISOString(),
      cause: 'connect',
      seen_by: 'instance-b',
      consecutive_failures: 0,
    });
    expect(nodes.find((node) => node.node_id === 'gpu3')?.ejection).toEqual({
      ejected: false,
      until: null,
      reason: null,
      level: 0,
      since: null,
      cause: null,
      seen_by: null,
      consecutive_failures: 2,
    });
    expect(nodes.find((node) => node.node_id === 'studio')?.image?.ejection).toMatchObject({
      ejected: false,
      consecutive_failures: 1,
    });
    expect(plain[0]).not.toHaveProperty('ejection');
  });

  it("says how old this instance's view of the table is and whether its last read failed", () => {
    const status = toFleetStatus(smallFleet([]), [], T0, [], { ageMs: 7_250.4, refreshFailed: true });

    expect([status.snapshot_age_ms, status.snapshot_refresh_failed]).toEqual([7250, true]);
  });
});
