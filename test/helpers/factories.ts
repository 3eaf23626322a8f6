/**
 * Factories for fleet test data with realistic values, the one place tests build them: a Mac Studio node
 * agent's heartbeat (as `herd-node` sends it), the records the router keeps, snapshots of them at T0,
 * routing requests, queue depths and states, and the scorer's inputs. Overrides are shallow: pass whole
 * nested objects to change them. Sizes are bytes and memory is GiB, as the domain model keeps them. HTTP
 * events are in events.ts, the named four-node fleet of the views in small-fleet.ts.
 */

import type { Trace } from '../../lib/core/analytics/trace-record';
import type {
  FleetSnapshot,
  LoadedModel,
  ModelPlacement,
  NodeMemory,
  NodeModel,
  NodeRecord,
  NodeView,
} from '../../lib/core/fleet/node';
import { buildSnapshot } from '../../lib/core/fleet/snapshot';
import type { QueueDepths } from '../../lib/core/scoring/load-signals';
import type { RoutingRequest } from '../../lib/core/scoring/routing-request';
import type { SignalInput } from '../../lib/core/scoring/signals';
import type { FullHeartbeat } from '../../lib/core/wire/heartbeat';
import type { QueueState } from '../../lib/services/dispatch/queue-manager';

/** 2025-01-01T00:00:00.000Z: a fixed clock for tests. */
export const T0 = Date.UTC(2025, 0, 1);
export const GIB = 2 ** 30;
export const GB = 1e9;
/** The liveness thresholds of the default config: degraded after 15 s of silence, offline after 30 s. */
export const THRESHOLDS = { degradedAfterMs: 15_000, offlineAfterMs: 30_000 };

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

/** An agent node with memory and the model on disk, not loaded. */
export function agentNode(overrides: Partial<NodeRecord> = {}): NodeRecord {
  return makeNodeRecord({
    source: 'agent',
    memory: { totalGb: 64, usedGb: 32, availableGb: 32, pressure: 'normal' },
    hardware: { memoryTotalGb: 64 },
    loaded: [],
    ...overrides,
  });
}

/** What a 192 GiB node reports with `availableGb` free. */
export function memory(availableGb: number): NodeMemory {
  return { totalGb: 192, usedGb: 192 - availableGb, availableGb, pressure: 'normal' };
}

/** An agent node `id` seen at T0 with `availableGb` free and no models. */
export function bareAgentNode(id: string, availableGb: number, overrides: Partial<NodeRecord> = {}): NodeRecord {
  return makeNodeRecord({
    id,
    source: 'agent',
    url: `http://${id}:11434`,
    lastSeenAt: T0,
    memory: memory(availableGb),
    models: [],
    loaded: [],
    ...overrides,
  });
}

/** A polled node `id` seen at T0 with no models: Ollama reports no memory. */
export function bareListedNode(id: string, overrides: Partial<NodeRecord> = {}): NodeRecord {
  return makeNodeRecord({ id, url: `http://${id}:11434`, lastSeenAt: T0, models: [], loaded: [], ...overrides });
}

/** The fleet the router would see at `now` (T0) with these records. */
export function snapshotOf(records: readonly NodeRecord[], now = T0): FleetSnapshot {
  return buildSnapshot(records, now, THRESHOLDS);
}

export function viewOf(record: NodeRecord, status: NodeView['status'] = 'online'): NodeView {
  return { ...record, status };
}

/** The placement of `model` on the node (the record's first on-disk model by default). */
export function placementOf(node: NodeView, model = node.models[0]?.name ?? ''): ModelPlacement {
  const onDisk = node.models.find((entry) => entry.name === model);
  const loaded = node.loaded.find((entry) => entry.name === model);
  return {
    node,
    kind: onDisk?.kind ?? 'llm',
    backend: 'ollama',
    ...(onDisk !== undefined ? { model: onDisk } : {}),
    ...(loaded !== undefined ? { loaded } : {}),
  };
}

export function makeRequest(overrides: Partial<RoutingRequest> = {}): RoutingRequest {
  return { model: 'llama3.2:3b', fallbackModels: [], kind: 'chat', needsVision: false, ...overrides };
}

/** Queue depths from `{ 'node:model': depth }`. */
export function depthsOf(table: Readonly<Record<string, number>> = {}): QueueDepths {
  const entries = Object.entries(table).map(([key, depth]) => {
    const colon = key.indexOf(':');
    return { nodeId: key.slice(0, colon), model: key.slice(colon + 1), depth };
  });
  return {
    depth: (nodeId, model) => entries.find((entry) => entry.nodeId === nodeId && entry.model === model)?.depth ?? 0,
    forEachBusy(model, visit) {
      for (const entry of entries) if (entry.model === model && entry.depth > 0) visit(entry.nodeId, entry.depth);
    },
  };
}

export const idle = depthsOf();

/** A signal input for the record's first model, idle and unpinned, at T0. */
export function signalInput(record: NodeRecord = agentNode(), overrides: Partial<SignalInput> = {}): SignalInput {
  const node = viewOf(record);
  const placement = placementOf(node);
  return {
    node,
    placement,
    model: placement.model?.name ?? '',
    resident: placement.loaded?.size ?? placement.model?.size ?? 0,
    depth: 0,
    limit: 1,
    p75Ms: undefined,
    ttft: { waitMs: 0, loadMs: 0, prefillMs: 0 },
    promptTokens: undefined,
    pinned: false,
    now: T0,
    ...overrides,
  };
}

/** A completed OpenAI-style chat trace served by `studio`, started now, with `overrides`. */
export function completedTrace(overrides: Partial<Trace> = {}): Trace {
  return {
    requestId: 'r',
    startedAt: Date.now(),
    style: 'openai-chat',
    status: 'completed',
    requestedModel: 'llama3.2:3b',
    servedModel: 'llama3.2:3b',
    nodeId: 'studio',
    latencyMs: 100,
    timeToFirstTokenMs: 20,
    promptTokens: 50,
    completionTokens: 10,
    retries: 0,
    tags: [],
    clientIp: '127.0.0.1',
    ...overrides,
  };
}
