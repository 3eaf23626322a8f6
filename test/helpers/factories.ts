/**
 * Factories for fleet test data with realistic values: a Mac Studio node agent's heartbeat (as
 * `herd-node` sends it) and the records the router keeps. Overrides are shallow: pass whole nested
 * objects to change them.
 */
import type { LoadedModel, NodeModel, NodeRecord } from '../../lib/core/fleet/node';
import type { FullHeartbeat } from '../../lib/core/wire/heartbeat';
import type { QueueState } from '../../lib/services/dispatch/queue-manager';

/** 2025-01-01T00:00:00.000Z: a fixed clock for tests. */
export const T0 = Date.UTC(2025, 0, 1);

export function makeHeartbeat(overrides: Partial<FullHeartbeat> = {}): FullHeartbeat {
  return {
    node_id: 'studio',
    arch: 'apple_silicon',
    timestamp: T0 / 1000,
    cpu: { cores_physical: 24, utilization_pct: 12.5 },
    memory: { total_gb: 192, used_gb: 80.5, available_gb: 111.5, pressure: 'normal', wired_gb: 20, compressed_gb: 0 },
    thermal: { state: 'unknown', temperature_c: null, source: '' },
    disk: { total_gb: 1858.2, used_gb: 912.4, available_gb: 945.8 },
    ollama: {
      models_loaded: [
        {
          name: 'llama3.2:3b',
          size_gb: 3.18,
          requests_active: 1,
          parameter_size: '3.2B',
          quantization: 'Q4_K_M',
          context_length: 8192,
        },
      ],
      models_available: ['llama3.2:3b', 'nomic-embed-text:latest', 'qwen3:32b'],
      requests_active: 1,
      models_available_sizes: { 'llama3.2:3b': 2.019393189, 'nomic-embed-text:latest': 0.27430245, 'qwen3:32b': 20.2 },
      num_parallel: 4,
      max_loaded_models: 3,
    },
    ollama_host: 'http://10.0.0.5:11434',
    lan_ip: '10.0.0.5',
    draining: false,
    capacity: null,
    agent_version: '0.9.2',
    chip: 'Apple M2 Ultra',
    memory_bandwidth_gbps: 800,
    image: null,
    image_port: 0,
    transcription: null,
    transcription_port: 0,
    text_embedding: null,
    text_embedding_port: 0,
    connection_failures: 0,
    connection_failures_total: 0,
    ...overrides,
  };
}

export function makeNodeModel(overrides: Partial<NodeModel> = {}): NodeModel {
  return {
    name: 'llama3.2:3b',
    kind: 'llm',
    size: 2_019_393_189,
    digest: 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72',
    modifiedAt: '2024-12-01T10:00:00.000Z',
    details: {
      parent_model: '',
      format: 'gguf',
      family: 'llama',
      families: ['llama'],
      parameter_size: '3.2B',
      quantization_level: 'Q4_K_M',
    },
    capabilities: ['completion', 'tools'],
    contextLength: 131072,
    ...overrides,
  };
}

export function makeLoadedModel(overrides: Partial<LoadedModel> = {}): LoadedModel {
  return {
    name: 'llama3.2:3b',
    size: 3_414_155_264,
    sizeVram: 3_414_155_264,
    expiresAt: '2025-01-01T00:05:00.000Z',
    contextLength: 8192,
    digest: 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72',
    details: { format: 'gguf', family: 'llama', parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
    ...overrides,
  };
}

export function makeNodeRecord(overrides: Partial<NodeRecord> = {}): NodeRecord {
  return {
    id: 'gpu1',
    source: 'listed',
    url: 'http://10.0.0.5:11434',
    version: '0.12.6',
    firstSeenAt: T0 - 60_000,
    lastSeenAt: T0,
    draining: false,
    hardware: {},
    models: [makeNodeModel()],
    loaded: [makeLoadedModel()],
    recentlyUnloaded: {},
    requestsActive: 0,
    numParallel: 1,
    sidecars: {},
    ...overrides,
  };
}

/** One node:model queue as an instance publishes it: idle, limit 1, nothing counted yet. */
export function makeQueueState(overrides: Partial<QueueState> = {}): QueueState {
  return {
    nodeId: 'gpu1',
    model: 'llama3.2:3b',
    pending: 0,
    inFlight: 0,
    concurrency: 1,
    completed: 0,
    failed: 0,
    cancelled: 0,
    rejected: 0,
    timedOut: 0,
    ...overrides,
  };
}
