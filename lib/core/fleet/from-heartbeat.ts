/**
 * A node agent's heartbeat → the node's record (ARCHITECTURE.md §8.2; anchor §1.3–1.4 for the field meanings
 * and the registry rules). The agent protocol uses 0 and '' for "not reported" in a few fields
 * (`num_parallel`, `max_loaded_models`, `memory_bandwidth_gbps`, `chip`, `lan_ip`, `agent_version`,
 * sidecar ports, a loaded model's `context_length`); those are read as absent here, everything else
 * is copied as sent. Pure: the clock and the peer address come in as parameters.
 */
import type { FullHeartbeat } from '../wire/heartbeat';
import { capabilitiesOrInferred, familyOf, kindFromCapabilities } from './model-kind';
import type { LoadedModel, NodeHardware, NodeModel, NodeRecord, NodeSidecars, Sidecar, SidecarModel } from './node';
import { nextRecentlyUnloaded } from './recently-unloaded';

export interface HeartbeatContext {
  readonly previous?: NodeRecord | undefined;
  readonly now: number;
  /** The address the heartbeat came from, when the handler knows it. */
  readonly peerIp?: string | undefined;
}

const DEFAULT_OLLAMA_PORT = 11434;
const BYTES_PER_GIB = 2 ** 30;
const BYTES_PER_GB = 1e9;

type OllamaMetrics = FullHeartbeat['ollama'];
type ModelMeta = NonNullable<OllamaMetrics['models_available_meta']>[string];

function present<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

/** A protocol string where '' means "not reported". */
function reported(value: string | null | undefined): string | undefined {
  return present(value) && value !== '' ? value : undefined;
}

/** A protocol number where 0 means "not reported". */
function positive(value: number | null | undefined): number | undefined {
  return present(value) && value > 0 ? value : undefined;
}

function ownValue<T>(record: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return present(record) && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Loopback, or the unspecified address an Ollama bound to all interfaces reports (`0.0.0.0`, `::`). */
export function isLocalOnlyHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || bare === '::' || bare === '0.0.0.0' || /^(::ffff:)?127\./.test(bare);
}

function parseHostUrl(host: string | undefined): URL | undefined {
  if (host === undefined) return undefined;
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `http://${host}`);
  } catch {
    return undefined;
  }
}

function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Where the router reaches the node's Ollama: a loopback peer → `http://127.0.0.1:<port>`; else the
 * agent's `lan_ip` when set and not loopback; else `ollama_host` when it names a reachable host; else
 * the peer's own address (the reference fell back to a `localhost` `ollama_host` here, which points
 * the router at itself); else `ollama_host` as sent. The port comes from `ollama_host`, default 11434.
 */
export function resolveAgentUrl(payload: Pick<FullHeartbeat, 'ollama_host' | 'lan_ip'>, peerIp?: string): string {
  const hostUrl = parseHostUrl(reported(payload.ollama_host));
  const port = hostUrl !== undefined && hostUrl.port !== '' ? Number(hostUrl.port) : DEFAULT_OLLAMA_PORT;
  const peer = reported(peerIp);
  if (peer !== undefined && isLocalOnlyHost(peer)) return `http://127.0.0.1:${port}`;
  const lanIp = reported(payload.lan_ip);
  if (lanIp !== undefined && !isLocalOnlyHost(lanIp)) return `http://${hostForUrl(lanIp)}:${port}`;
  if (hostUrl !== undefined && !isLocalOnlyHost(hostUrl.hostname)) return hostUrl.origin;
  if (peer !== undefined) return `http://${hostForUrl(peer)}:${port}`;
  return hostUrl?.origin ?? `http://127.0.0.1:${port}`;
}

function detailsFromMeta(meta: ModelMeta): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  for (const key of ['parent_model', 'format', 'family', 'families', 'parameter_size', 'quantization_level']) {
    const value = meta[key];
    if (present(value)) details[key] = value;
  }
  return details;
}

function detailsFromLoaded(loaded: OllamaMetrics['models_loaded'][number] | undefined): Record<string, unknown> {
  const parameterSize = reported(loaded?.parameter_size);
  const quantization = reported(loaded?.quantization);
  return {
    ...(parameterSize !== undefined ? { parameter_size: parameterSize } : {}),
    ...(quantization !== undefined ? { quantization_level: quantization } : {}),
  };
}

/** One on-disk model: metadata from this heartbeat, else (metadata omitted = unchanged) from the previous record. */
function heartbeatModel(name: string, ollama: OllamaMetrics, previous: NodeModel | undefined): NodeModel {
  const sizeGb = ownValue(ollama.models_available_sizes, name);
  const size = sizeGb !== undefined ? Math.round(sizeGb * BYTES_PER_GB) : (previous?.size ?? 0);
  const meta = ownValue(ollama.models_available_meta, name);
  if (meta === undefined && !present(ollama.models_available_meta) && previous !== undefined) {
    return { ...previous, size };
  }
  const loaded = ollama.models_loaded.find((model) => model.name === name);
  const details = meta !== undefined ? detailsFromMeta(meta) : detailsFromLoaded(loaded);
  const capabilities = capabilitiesOrInferred(meta?.capabilities, name, familyOf(details));
  return {
    name,
    kind: kindFromCapabilities(capabilities),
    size,
    digest: meta?.digest ?? '',
    modifiedAt: meta?.modified_at ?? '',
    details,
    capabilities,
    ...(meta?.capabilities !== undefined && meta.capabilities !== null && meta.capabilities.length > 0
      ? { described: true as const }
      : {}),
  };
}

/** On-disk models, plus any loaded model the agent did not list on disk (as the reference's tags union does). */
function heartbeatModels(ollama: OllamaMetrics, previous: NodeRecord | undefined): NodeModel[] {
  const previousByName = new Map((previous?.models ?? []).map((model) => [model.name, model]));
  const names = new Set<string>();
  for (const name of ollama.models_available) if (name !== '') names.add(name);
  for (const loaded of ollama.models_loaded) names.add(loaded.name);
  return [...names].sort().map((name) => heartbeatModel(name, ollama, previousByName.get(name)));
}

function heartbeatLoaded(ollama: OllamaMetrics, models: readonly NodeModel[]): LoadedModel[] {
  const byName = new Map(models.map((model) => [model.name, model]));
  return ollama.models_loaded.map((entry) => {
    const model = byName.get(entry.name);
    const size = Math.round(entry.size_gb * BYTES_PER_GIB);
    const contextLength = positive(entry.context_length);
    return {
      name: entry.name,
      size,
      // Agents report one resident size; the runtime holds it in (unified) GPU memory.
      sizeVram: size,
      expiresAt: '',
      digest: model?.digest ?? '',
      details: { ...model?.details, ...detailsFromLoaded(entry) },
      ...(contextLength !== undefined ? { contextLength } : {}),
      ...(present(entry.requests_active) ? { requestsActive: entry.requests_active } : {}),
    };
  });
}

/** A sidecar exists when the agent gave it a port (0 = none) and it serves at least one model. */
function sidecar(
  host: string,
  port: number | null | undefined,
  models: SidecarModel[],
  busy: boolean,
): Sidecar | undefined {
  const sidecarPort = positive(port);
  if (sidecarPort === undefined || models.length === 0) return undefined;
  return { port: sidecarPort, url: `http://${host}:${sidecarPort}`, models, busy };
}

function sidecarModel(
  name: string,
  kind: SidecarModel['kind'],
  binary?: string | null,
  dimensions?: number | null,
): SidecarModel {
  const binaryName = reported(binary);
  return {
    name,
    kind,
    ...(binaryName !== undefined ? { binary: binaryName } : {}),
    ...(present(dimensions) ? { dimensions } : {}),
  };
}

function heartbeatSidecars(payload: FullHeartbeat, ollamaUrl: string): NodeSidecars {
  const host = new URL(ollamaUrl).hostname;
  const image = sidecar(
    host,
    payload.image_port,
    (payload.image?.models_available ?? []).map((model) => sidecarModel(model.name, 'image', model.binary)),
    payload.image?.generating === true,
  );
  const transcription = sidecar(
    host,
    payload.transcription_port,
    (payload.transcription?.models_available ?? []).map((model) =>
      sidecarModel(model.name, 'transcription', model.binary),
    ),
    payload.transcription?.transcribing === true,
  );
  const textEmbedding = sidecar(
    host,
    payload.text_embedding_port,
    (payload.text_embedding?.models_available ?? []).map((model) =>
      sidecarModel(model.name, model.kind === 'rerank' ? 'rerank' : 'embedding', undefined, model.dimensions),
    ),
    payload.text_embedding?.processing === true,
  );
  return {
    ...(image !== undefined ? { image } : {}),
    ...(transcription !== undefined ? { transcription } : {}),
    ...(textEmbedding !== undefined ? { textEmbedding } : {}),
  };
}

function heartbeatHardware(payload: FullHeartbeat, previous: NodeRecord | undefined): NodeHardware {
  // Older agents send chip/bandwidth only sometimes: keep what an earlier heartbeat said.
  const chip = reported(payload.chip) ?? previous?.hardware.chip;
  const arch = reported(payload.arch) ?? previous?.hardware.arch;
  const bandwidth = positive(payload.memory_bandwidth_gbps) ?? previous?.hardware.memoryBandwidthGbps;
  return {
    ...(chip !== undefined ? { chip } : {}),
    ...(arch !== undefined ? { arch } : {}),
    coresPhysical: payload.cpu.cores_physical,
    memoryTotalGb: payload.memory.total_gb,
    ...(bandwidth !== undefined ? { memoryBandwidthGbps: bandwidth } : {}),
  };
}

function heartbeatMetrics(payload: FullHeartbeat): Pick<NodeRecord, 'memory' | 'cpu' | 'thermal' | 'disk'> {
  const { memory, cpu, thermal, disk } = payload;
  return {
    memory: {
      totalGb: memory.total_gb,
      usedGb: memory.used_gb,
      availableGb: memory.available_gb,
      pressure: memory.pressure,
    },
    cpu: { coresPhysical: cpu.cores_physical, utilizationPct: cpu.utilization_pct },
    ...(present(thermal)
      ? {
          thermal: {
            state: thermal.state ?? 'unknown',
            ...(present(thermal.temperature_c) ? { temperatureC: thermal.temperature_c } : {}),
          },
        }
      : {}),
    ...(present(disk)
      ? { disk: { totalGb: disk.total_gb, usedGb: disk.used_gb, availableGb: disk.available_gb } }
      : {}),
  };
}

/** The record for a full heartbeat (source `agent`); `lastSeenAt` moves to `now`, errors are cleared. */
export function nodeFromHeartbeat(payload: FullHeartbeat, context: HeartbeatContext): NodeRecord {
  const { previous, now } = context;
  const { ollama } = payload;
  const url = resolveAgentUrl(payload, context.peerIp);
  const models = heartbeatModels(ollama, previous);
  const loaded = heartbeatLoaded(ollama, models);
  const version = reported(ollama.version) ?? previous?.version;
  const agentVersion = reported(payload.agent_version);
  const lanIp = reported(payload.lan_ip);
  const maxLoadedModels = positive(ollama.max_loaded_models);
  return {
    id: payload.node_id,
    source: 'agent',
    url,
    ...(version !== undefined ? { version } : {}),
    ...(agentVersion !== undefined ? { agentVersion } : {}),
    ...(lanIp !== undefined ? { lanIp } : {}),
    firstSeenAt: previous?.firstSeenAt ?? now,
    lastSeenAt: now,
    draining: payload.draining ?? false,
    hardware: heartbeatHardware(payload, previous),
    ...heartbeatMetrics(payload),
    models,
    loaded,
    recentlyUnloaded: nextRecentlyUnloaded(previous, loaded, now),
    requestsActive: ollama.requests_active ?? loaded.reduce((sum, model) => sum + (model.requestsActive ?? 0), 0),
    numParallel: positive(ollama.num_parallel) ?? 1,
    ...(maxLoadedModels !== undefined ? { maxLoadedModels } : {}),
    sidecars: heartbeatSidecars(payload, url),
  };
}

/** The drain message: the node takes no new work from now on (offline at once); everything else is kept. */
export function drainNode(previous: NodeRecord, now: number): NodeRecord {
  return { ...previous, draining: true, lastSeenAt: Math.max(previous.lastSeenAt, now) };
}
