/**
 * The fleet's domain model: what the router knows about one node (from polling a listed Ollama server
 * or from a node agent's heartbeat), and the read-only snapshot routing works from. Records are stored
 * as JSON documents in the table (lib/services/store) and rebuilt into a snapshot at most once a second.
 * Pure types; see ARCHITECTURE.md §8 for where each field comes from.
 */
import type { Ejection } from './ejection';

export type NodeStatus = 'online' | 'degraded' | 'offline';

/** How a node joined: listed in FLEET_NODES and polled, or announced by a node agent's heartbeats. */
export type NodeSource = 'listed' | 'agent';

/** What a model does, which decides the routes that may use it. */
export type ModelKind = 'llm' | 'embedding' | 'image' | 'transcription' | 'rerank';

export type MemoryPressure = 'normal' | 'warn' | 'critical';

/** A model the node's Ollama runtime has on disk (`/api/tags`, enriched by `/api/show`). */
export interface NodeModel {
  /** Name with tag, as Ollama lists it (`llama3.2:3b`). */
  readonly name: string;
  readonly kind: ModelKind;
  /** Bytes on disk; 0 only when the node never said. */
  readonly size: number;
  /** `sha256:…` or the bare hex Ollama lists; '' when unknown. */
  readonly digest: string;
  /** RFC 3339; '' when unknown. */
  readonly modifiedAt: string;
  /** Ollama's `details` object as the node sent it (format, family, parameter_size, …). */
  readonly details: Readonly<Record<string, unknown>>;
  /** Ollama capabilities: completion, tools, vision, embedding, thinking, insert, image, audio. */
  readonly capabilities: readonly string[];
  /** The model's trained context window (`<arch>.context_length`), when known. */
  readonly contextLength?: number;
  /**
   * True when capabilities and context length came from the node's runtime (`/api/show`, or metadata
   * the agent sent); absent when they were inferred from the name and the router should ask.
   */
  readonly described?: true;
}

/** A model held hot in memory (`/api/ps`, or a heartbeat's `models_loaded`). */
export interface LoadedModel {
  readonly name: string;
  /** Bytes the loaded model occupies (weights + KV cache). */
  readonly size: number;
  readonly sizeVram: number;
  /** RFC 3339 time the runtime will unload it; '' when unknown. */
  readonly expiresAt: string;
  /** The context window it was loaded with. */
  readonly contextLength?: number;
  readonly digest: string;
  readonly details: Readonly<Record<string, unknown>>;
  /** Requests the node reports in flight on this model, when it reports per-model counts. */
  readonly requestsActive?: number;
}

/** A model served by a node agent's sidecar (image, speech-to-text, text embedding and rerank). */
export interface SidecarModel {
  readonly name: string;
  readonly kind: ModelKind;
  /** Embedding width (text-embedding sidecar); 0 for rerankers. */
  readonly dimensions?: number;
  /** The binary behind an image or speech model (`mflux-generate`, …). */
  readonly binary?: string;
}

export interface Sidecar {
  readonly port: number;
  /** Base URL the router calls (`http://<node host>:<port>`). */
  readonly url: string;
  readonly models: readonly SidecarModel[];
  /** The agent reports the sidecar is working on something now. */
  readonly busy: boolean;
}

export interface NodeSidecars {
  readonly image?: Sidecar;
  readonly transcription?: Sidecar;
  readonly textEmbedding?: Sidecar;
}

export interface NodeHardware {
  readonly chip?: string;
  readonly arch?: string;
  readonly coresPhysical?: number;
  readonly memoryTotalGb?: number;
  readonly memoryBandwidthGbps?: number;
}

export interface NodeMemory {
  readonly totalGb: number;
  readonly usedGb: number;
  readonly availableGb: number;
  readonly pressure: MemoryPressure;
}

export interface NodeCpu {
  readonly coresPhysical: number;
  readonly utilizationPct: number;
}

export interface NodeThermal {
  readonly state: string;
  readonly temperatureC?: number;
}

export interface NodeDisk {
  readonly totalGb: number;
  readonly usedGb: number;
  readonly availableGb: number;
}

/** Everything known about one node; the document stored in the table. */
export interface NodeRecord {
  readonly id: string;
  readonly source: NodeSource;
  /** Base URL of the node's Ollama API, no trailing slash. */
  readonly url: string;
  /** Ollama's version (`/api/version`), when known. */
  readonly version?: string;
  readonly agentVersion?: string;
  readonly lanIp?: string;
  readonly firstSeenAt: number;
  /** Epoch ms of the last good poll or heartbeat; liveness is computed from it. */
  readonly lastSeenAt: number;
  /** Epoch ms and text of the last failed poll since the last good one: the operator's words, URL and code included. */
  readonly lastErrorAt?: number;
  readonly lastError?: string;
  /** The same failure in words a client may read ("closed the connection"): no URL, no code. */
  readonly lastErrorWords?: string;
  /** A draining node takes no new work (it said so, or it is shutting down). */
  readonly draining: boolean;
  readonly hardware: NodeHardware;
  readonly memory?: NodeMemory;
  readonly cpu?: NodeCpu;
  readonly thermal?: NodeThermal;
  readonly disk?: NodeDisk;
  /** Runtime-native models on disk, sorted by name. */
  readonly models: readonly NodeModel[];
  /** Models held hot, in the order the node listed them. */
  readonly loaded: readonly LoadedModel[];
  /** Model name → epoch ms it dropped out of `loaded` (a "warm" signal for the scorer). */
  readonly recentlyUnloaded: Readonly<Record<string, number>>;
  /** Requests the node reports in flight across all models. */
  readonly requestsActive: number;
  /** How many requests per model the runtime runs at once (OLLAMA_NUM_PARALLEL); 1 when unreported. */
  readonly numParallel: number;
  readonly maxLoadedModels?: number;
  readonly sidecars: NodeSidecars;
}

/** A record with its liveness at the moment the snapshot was taken. */
export interface NodeView extends NodeRecord {
  readonly status: NodeStatus;
}

/** One way to serve a model: a node, and where on it the model lives. */
export interface ModelPlacement {
  readonly node: NodeView;
  readonly kind: ModelKind;
  /** `ollama` for the node's runtime, else the sidecar that serves it. */
  readonly backend: 'ollama' | 'image' | 'transcription' | 'text-embedding';
  /** The on-disk entry (runtime models) — absent for sidecar models. */
  readonly model?: NodeModel;
  readonly sidecarModel?: SidecarModel;
  /** Set when the model is hot on this node. */
  readonly loaded?: LoadedModel;
}

/**
 * The read-only view routing works from: built from the table at most once a second, never awaited on
 * the hot path. Offline nodes are listed (for status pages) but never placed.
 */
export interface FleetSnapshot {
  readonly takenAt: number;
  /** Every known node, sorted by id. */
  readonly nodes: readonly NodeView[];
  readonly byId: ReadonlyMap<string, NodeView>;
  /** Model name → where it can be served now (online and degraded nodes only), sorted by node id. */
  readonly placements: ReadonlyMap<string, readonly ModelPlacement[]>;
  /**
   * Ejections other instances published through the table that stand at `takenAt` (./shared-ejections),
   * read with the node records; absent when the read carried none.
   */
  readonly ejections?: readonly Ejection[];
}

/** How current an instance's snapshot is (the registry's view of the table), for `/fleet/status`. */
export interface SnapshotFreshness {
  /** Since the last good read of the table; undefined before the first. */
  readonly ageMs: number | undefined;
  /** The last read of the table failed (the snapshot is served as it was). */
  readonly refreshFailed: boolean;
}
