/**
 * The herd-node heartbeat payload (ARCHITECTURE.md §8.2, anchor-ollama-herd §1.3) built from a
 * simulated node's live state and its sidecars: what a real node agent POSTs to `/heartbeat` every 5 s.
 * Missing sidecars are sent as `null` with port 0, exactly as herd-node does.
 */
import type { ImageModel } from './image-sidecar';
import type { SimNode, SimNodeSnapshot } from './ollama-node';
import type { SimSidecar } from './sidecar';
import type { TextEmbeddingModel } from './text-embedding-sidecar';
import type { TranscriptionModel } from './transcription-sidecar';

const GIB = 1024 ** 3;
/** Memory the operating system and agent use before any model is loaded, GB. */
export const BASE_USED_GB = 6;

export type MemoryPressure = 'normal' | 'warn' | 'critical';

export interface HeartbeatLoadedModel {
  readonly name: string;
  readonly size_gb: number;
  readonly requests_active: number;
  readonly parameter_size: string;
  readonly quantization: string;
  readonly context_length: number;
}

export interface HeartbeatPayload {
  readonly node_id: string;
  readonly arch: string;
  readonly timestamp: number;
  readonly cpu: { readonly cores_physical: number; readonly utilization_pct: number };
  readonly memory: {
    readonly total_gb: number;
    readonly used_gb: number;
    readonly available_gb: number;
    readonly pressure: MemoryPressure;
    readonly wired_gb: number;
    readonly compressed_gb: number;
  };
  readonly thermal: { readonly state: string; readonly temperature_c: number | null; readonly source: string };
  readonly disk: { readonly total_gb: number; readonly used_gb: number; readonly available_gb: number };
  readonly ollama: {
    readonly models_loaded: readonly HeartbeatLoadedModel[];
    readonly models_available: readonly string[];
    readonly requests_active: number;
    readonly models_available_sizes: Readonly<Record<string, number>>;
    readonly num_parallel: number;
    readonly max_loaded_models: number;
  };
  readonly ollama_host: string;
  readonly lan_ip: string;
  readonly draining: boolean;
  readonly agent_version: string;
  readonly chip: string;
  readonly memory_bandwidth_gbps: number;
  readonly connection_failures: number;
  readonly connection_failures_total: number;
  readonly image: { readonly models_available: readonly ImageModel[]; readonly generating: boolean } | null;
  readonly image_port: number;
  readonly transcription: {
    readonly models_available: readonly TranscriptionModel[];
    readonly transcribing: boolean;
  } | null;
  readonly transcription_port: number;
  readonly text_embedding: {
    readonly models_available: readonly TextEmbeddingModel[];
    readonly processing: boolean;
  } | null;
  readonly text_embedding_port: number;
}

export interface HeartbeatHost {
  readonly nodeId: string;
  readonly arch: string;
  readonly chip: string;
  readonly memoryBandwidthGbps: number;
  readonly agentVersion: string;
  readonly coresPhysical: number;
  readonly totalGb: number;
  /** Fixed memory use; undefined = computed from the loaded models. */
  readonly usedGb: number | undefined;
  /**
   * Memory in use before any model, GB: 6 for a machine whose total includes the OS, 0 for a node with a
   * performance model, whose total is the memory models may occupy (so available = room for models).
   */
  readonly baseUsedGb: number;
  readonly diskTotalGb: number;
}

export interface HeartbeatSources {
  readonly node: SimNode;
  readonly image: SimSidecar<ImageModel> | undefined;
  readonly transcription: SimSidecar<TranscriptionModel> | undefined;
  readonly textEmbedding: SimSidecar<TextEmbeddingModel> | undefined;
  readonly connectionFailures: number;
  readonly connectionFailuresTotal: number;
}

function round(value: number, digits = 1): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export function pressureOf(usedGb: number, totalGb: number): MemoryPressure {
  const used = totalGb > 0 ? usedGb / totalGb : 0;
  if (used >= 0.95) return 'critical';
  return used >= 0.85 ? 'warn' : 'normal';
}

/** What the agent can read from its Ollama: nothing when Ollama refuses or hangs (herd sends empty lists). */
function readOllama(node: SimNode): SimNodeSnapshot {
  const faults = node.faults.state();
  if (faults.refusing || faults.hanging) return { models: [], loaded: [], requestsActive: 0 };
  return node.snapshot();
}

function ollamaSection(node: SimNode, snapshot: SimNodeSnapshot): HeartbeatPayload['ollama'] {
  return {
    models_loaded: snapshot.loaded.map((model) => ({
      name: model.name,
      size_gb: round(model.size / GIB, 2),
      requests_active: model.requestsActive,
      parameter_size: model.parameterSize,
      quantization: model.quantization,
      context_length: model.contextLength,
    })),
    models_available: snapshot.models.map((model) => model.name),
    requests_active: snapshot.requestsActive,
    models_available_sizes: Object.fromEntries(snapshot.models.map((m) => [m.name, round(m.size / GIB, 2)])),
    num_parallel: node.numParallel,
    max_loaded_models: node.maxLoadedModels,
  };
}

function memorySection(host: HeartbeatHost, snapshot: SimNodeSnapshot): HeartbeatPayload['memory'] {
  const loadedGb = snapshot.loaded.reduce((sum, model) => sum + model.size / GIB, 0);
  const used = Math.min(host.totalGb, host.usedGb ?? host.baseUsedGb + loadedGb);
  return {
    total_gb: round(host.totalGb),
    used_gb: round(used),
    available_gb: round(host.totalGb - used),
    pressure: pressureOf(used, host.totalGb),
    wired_gb: round(loadedGb),
    compressed_gb: 0,
  };
}

function diskSection(host: HeartbeatHost, snapshot: SimNodeSnapshot): HeartbeatPayload['disk'] {
  const used = Math.min(host.diskTotalGb, 120 + snapshot.models.reduce((sum, m) => sum + m.size / GIB, 0));
  return { total_gb: round(host.diskTotalGb), used_gb: round(used), available_gb: round(host.diskTotalGb - used) };
}

function sidecarSections(sources: HeartbeatSources) {
  const { image, transcription, textEmbedding } = sources;
  return {
    image: image === undefined ? null : { models_available: image.models, generating: image.busy() },
    image_port: image?.port ?? 0,
    transcription:
      transcription === undefined
        ? null
        : { models_available: transcription.models, transcribing: transcription.busy() },
    transcription_port: transcription?.port ?? 0,
    text_embedding:
      textEmbedding === undefined ? null : { models_available: textEmbedding.models, processing: textEmbedding.busy() },
    text_embedding_port: textEmbedding?.port ?? 0,
  };
}

/** The full heartbeat payload as of now. */
export function heartbeatPayload(host: HeartbeatHost, sources: HeartbeatSources, draining: boolean): HeartbeatPayload {
  const snapshot = readOllama(sources.node);
  return {
    node_id: host.nodeId,
    arch: host.arch,
    timestamp: Date.now() / 1000,
    cpu: {
      cores_physical: host.coresPhysical,
      utilization_pct: round(Math.min(100, 3 + 12 * snapshot.requestsActive)),
    },
    memory: memorySection(host, snapshot),
    thermal: { state: 'nominal', temperature_c: 48, source: 'simulated' },
    disk: diskSection(host, snapshot),
    ollama: ollamaSection(sources.node, snapshot),
    ollama_host: sources.node.url,
    lan_ip: '127.0.0.1',
    draining,
    agent_version: host.agentVersion,
    chip: host.chip,
    memory_bandwidth_gbps: host.memoryBandwidthGbps,
    connection_failures: sources.connectionFailures,
    connection_failures_total: sources.connectionFailuresTotal,
    ...sidecarSections(sources),
  };
}
