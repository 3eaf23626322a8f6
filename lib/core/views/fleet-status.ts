/**
 * `GET /fleet/status` body (HTTP interface §4.6; the reference's shape in anchor §6.3): fleet totals,
 * one entry per known node (offline ones too, for status pages), and the per node:model queues.
 * Unknown values are `null`, never a made-up zero. Totals over models and requests count online and
 * degraded nodes only: an offline node's last report is stale. A node that failed requests carries
 * `ejection` (issue 19 item 4): whether it is out of routing, until when and why, and its failures in a
 * row as this router instance counted them; absent when it has none. Ejections are shared (issue 45):
 * the entry shows the ones other instances published too, each with the instance that saw the failure. Pure: the clock comes in as `now`.
 */

import type { FleetSnapshot, NodeView, Sidecar, SnapshotFreshness } from '../fleet/node';
import { silentForMs } from '../fleet/node-status';
import type { QueueEntry } from '../fleet/queue-entry';
import { isPlaceable } from '../fleet/snapshot';

export interface FleetQueueState {
  readonly node_id: string;
  readonly model: string;
  readonly pending: number;
  readonly in_flight: number;
  readonly concurrency: number;
  /** Who waits (issue 43), when anyone does: by priority and by application. */
  readonly waiting_by_priority?: Readonly<Record<'high' | 'normal' | 'low', number>>;
  readonly waiting_by_app?: Readonly<Record<string, number>>;
}

/** A node's service's standing with outlier ejection (lib/services/dispatch/outlier-ejection `NodeHealthState`). */
export interface NodeHealthEntry {
  readonly nodeId: string;
  /** `ollama`, or the sidecar (`image`, `transcription`, `text-embedding`). */
  readonly backend: string;
  readonly consecutiveFailures: number;
  readonly ejection?: {
    readonly at: number;
    readonly until: number;
    readonly reason: string;
    readonly level: number;
    readonly cause: string;
    readonly by?: string;
  };
}

export interface FleetNodeEjection {
  readonly ejected: boolean;
  /** ISO 8601 time it returns to routing; null when not ejected. */
  readonly until: string | null;
  readonly reason: string | null;
  /** Ejections in a row (each doubles the next one's length); 0 when not ejected. */
  readonly level: number;
  /** ISO 8601 time the failure was seen; null when not ejected. */
  readonly since: string | null;
  /** What failed: `connect`, `first-byte-timeout`, `poll`, `transport` or `server-error`; null when not ejected. */
  readonly cause: string | null;
  /** The router instance that saw the failure (this one's or another's, through the table); null when not ejected. */
  readonly seen_by: string | null;
  /** 5xx answers or cut connections in a row since its last answer. */
  readonly consecutive_failures: number;
}

export interface FleetSidecarStatus {
  readonly port: number;
  readonly url: string;
  readonly models_available: readonly { name: string; kind: string; binary?: string; dimensions?: number }[];
  readonly busy: boolean;
  /** Present when this router instance counted failures on the sidecar or ejected it. */
  readonly ejection?: FleetNodeEjection;
}

export interface FleetNodeStatus {
  readonly node_id: string;
  readonly status: NodeView['status'];
  readonly source: NodeView['source'];
  readonly url: string;
  readonly version: string | null;
  readonly agent_version: string | null;
  /** ISO 8601 time of the last good poll or heartbeat; null for a listed node that never answered. */
  readonly last_seen: string | null;
  readonly seconds_since_seen: number | null;
  readonly last_error?: string;
  readonly draining: boolean;
  /** Present when this router instance counted failures on the node or ejected it. */
  readonly ejection?: FleetNodeEjection;
  readonly hardware: {
    readonly chip: string | null;
    readonly arch: string | null;
    readonly cores_physical: number | null;
    readonly memory_total_gb: number | null;
    readonly memory_bandwidth_gbps: number | null;
  };
  readonly memory: { total_gb: number; used_gb: number; available_gb: number; pressure: string } | null;
  readonly cpu: { cores_physical: number; utilization_pct: number } | null;
  readonly thermal: { state: string; temperature_c: number | null } | null;
  readonly disk: { total_gb: number; used_gb: number; available_gb: number } | null;
  readonly ollama: {
    readonly models_loaded: readonly {
      name: string;
      size_gb: number;
      context_length: number | null;
      expires_at: string | null;
    }[];
    readonly models_available: readonly string[];
    readonly requests_active: number;
    readonly num_parallel: number;
  };
  readonly image?: FleetSidecarStatus;
  readonly transcription?: FleetSidecarStatus;
  readonly text_embedding?: FleetSidecarStatus;
}

/**
 * How this instance routes (issue 41): the strategy in force and the rates it has observed per
 * node:model (tokens/s, ms; rounded), which the default strategy's expected time to first token uses.
 */
export interface FleetRoutingStatus {
  readonly strategy: string;
  readonly observed_rates: readonly {
    readonly node_id: string;
    readonly model: string;
    readonly prefill_tokens_per_second: number | null;
    readonly decode_tokens_per_second: number | null;
    readonly cold_load_ms: number | null;
    readonly samples: number;
  }[];
}

/** What the status says of routing, as the dispatcher's state has it. */
export interface RoutingFacts {
  readonly strategy: string;
  readonly rates: readonly {
    readonly nodeId: string;
    readonly model: string;
    readonly prefillTps: number | undefined;
    readonly decodeTps: number | undefined;
    readonly loadMs: number | undefined;
    readonly samples: number;
  }[];
}

const rounded = (value: number | undefined) => (value === undefined ? null : Math.round(value * 10) / 10);

export function routingStatus(facts: RoutingFacts): FleetRoutingStatus {
  const rates = [...facts.rates].sort((a, b) =>
    a.nodeId === b.nodeId ? (a.model < b.model ? -1 : 1) : a.nodeId < b.nodeId ? -1 : 1,
  );
  return {
    strategy: facts.strategy,
    observed_rates: rates.map((rate) => ({
      node_id: rate.nodeId,
      model: rate.model,
      prefill_tokens_per_second: rounded(rate.prefillTps),
      decode_tokens_per_second: rounded(rate.decodeTps),
      cold_load_ms: rate.loadMs === undefined ? null : Math.round(rate.loadMs),
      samples: rate.samples,
    })),
  };
}

export interface FleetStatus {
  readonly fleet: {
    readonly nodes_total: number;
    readonly nodes_online: number;
    readonly nodes_degraded: number;
    readonly nodes_offline: number;
    readonly models_loaded: number;
    readonly models_available: number;
    readonly requests_active: number;
  };
  readonly nodes: readonly FleetNodeStatus[];
  readonly queues: Readonly<Record<string, FleetQueueState>>;
  /** Since this instance last read the fleet from the table (null before its first read). */
  readonly snapshot_age_ms: number | null;
  /** The last read of the table failed: the fleet shown is as it was `snapshot_age_ms` ago. */
  readonly snapshot_refresh_failed: boolean;
  /** How this instance routes; present where the caller knows (the status route does). */
  readonly routing?: FleetRoutingStatus;
  /** Unix seconds. */
  readonly timestamp: number;
}

const BYTES_PER_GIB = 2 ** 30;

/** Queues keyed `node:model`, as the reference keys them; sorted by key for a stable body. */
export function queueStates(queues: readonly QueueEntry[]): Record<string, FleetQueueState> {
  const states: Record<string, FleetQueueState> = {};
  const sorted = queues
    .map((queue) => [`${queue.nodeId}:${queue.model}`, queue] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [key, queue] of sorted) {
    const state = {
      node_id: queue.nodeId,
      model: queue.model,
      pending: queue.pending,
      in_flight: queue.inFlight,
      concurrency: queue.concurrency,
    };
    states[key] =
      queue.waiting === undefined || queue.pending === 0
        ? state
        : { ...state, waiting_by_priority: queue.waiting.byPriority, waiting_by_app: queue.waiting.byApp };
  }
  return states;
}

function sidecarStatus(sidecar: Sidecar, health: NodeHealthEntry | undefined): FleetSidecarStatus {
  return {
    port: sidecar.port,
    url: sidecar.url,
    models_available: sidecar.models.map((model) => ({
      name: model.name,
      kind: model.kind,
      ...(model.binary !== undefined ? { binary: model.binary } : {}),
      ...(model.dimensions !== undefined ? { dimensions: model.dimensions } : {}),
    })),
    busy: sidecar.busy,
    ...(health !== undefined ? { ejection: ejectionEntry(health) } : {}),
  };
}

function nodeMetrics(node: NodeView): Pick<FleetNodeStatus, 'hardware' | 'memory' | 'cpu' | 'thermal' | 'disk'> {
  const { hardware, memory, cpu, thermal, disk } = node;
  return {
    hardware: {
      chip: hardware.chip ?? null,
      arch: hardware.arch ?? null,
      cores_physical: hardware.coresPhysical ?? null,
      memory_total_gb: hardware.memoryTotalGb ?? null,
      memory_bandwidth_gbps: hardware.memoryBandwidthGbps ?? null,
    },
    memory:
      memory === undefined
        ? null
        : {
            total_gb: memory.totalGb,
            used_gb: memory.usedGb,
            available_gb: memory.availableGb,
            pressure: memory.pressure,
          },
    cpu: cpu === undefined ? null : { cores_physical: cpu.coresPhysical, utilization_pct: cpu.utilizationPct },
    thermal: thermal === undefined ? null : { state: thermal.state, temperature_c: thermal.temperatureC ?? null },
    disk: disk === undefined ? null : { total_gb: disk.totalGb, used_gb: disk.usedGb, available_gb: disk.availableGb },
  };
}

/** Null for a listed node that never answered. */
function lastSeen(node: NodeView, now: number): Pick<FleetNodeStatus, 'last_seen' | 'seconds_since_seen'> {
  const silentMs = silentForMs(node, now);
  if (silentMs === undefined) return { last_seen: null, seconds_since_seen: null };
  return { last_seen: new Date(node.lastSeenAt).toISOString(), seconds_since_seen: Math.round(silentMs / 100) / 10 };
}

function ejectionEntry(health: NodeHealthEntry): FleetNodeEjection {
  const { ejection } = health;
  return {
    ejected: ejection !== undefined,
    until: ejection === undefined ? null : new Date(ejection.until).toISOString(),
    reason: ejection?.reason ?? null,
    level: ejection?.level ?? 0,
    since: ejection === undefined ? null : new Date(ejection.at).toISOString(),
    cause: ejection?.cause ?? null,
    seen_by: ejection?.by ?? null,
    consecutive_failures: health.consecutiveFailures,
  };
}

/** The node's health entries by backend. */
type HealthByBackend = ReadonlyMap<string, NodeHealthEntry>;

function nodeStatusEntry(node: NodeView, now: number, health: HealthByBackend | undefined): FleetNodeStatus {
  const { image, transcription, textEmbedding } = node.sidecars;
  const own = health?.get('ollama');
  return {
    node_id: node.id,
    status: node.status,
    source: node.source,
    url: node.url,
    version: node.version ?? null,
    agent_version: node.agentVersion ?? null,
    ...lastSeen(node, now),
    ...(node.lastError !== undefined ? { last_error: node.lastError } : {}),
    draining: node.draining,
    ...(own !== undefined ? { ejection: ejectionEntry(own) } : {}),
    ...nodeMetrics(node),
    ollama: {
      models_loaded: node.loaded.map((loaded) => ({
        name: loaded.name,
        size_gb: Math.round((loaded.size / BYTES_PER_GIB) * 100) / 100,
        context_length: loaded.contextLength ?? null,
        expires_at: loaded.expiresAt !== '' ? loaded.expiresAt : null,
      })),
      models_available: node.models.map((model) => model.name),
      requests_active: node.requestsActive,
      num_parallel: node.numParallel,
    },
    ...(image !== undefined ? { image: sidecarStatus(image, health?.get('image')) } : {}),
    ...(transcription !== undefined
      ? { transcription: sidecarStatus(transcription, health?.get('transcription')) }
      : {}),
    ...(textEmbedding !== undefined
      ? { text_embedding: sidecarStatus(textEmbedding, health?.get('text-embedding')) }
      : {}),
  };
}

function fleetTotals(snapshot: FleetSnapshot): FleetStatus['fleet'] {
  const count = (status: NodeView['status']) => snapshot.nodes.filter((node) => node.status === status).length;
  const placeable = snapshot.nodes.filter(isPlaceable);
  const names = new Set<string>();
  for (const node of placeable) {
    for (const model of node.models) names.add(model.name);
    for (const sidecar of [node.sidecars.image, node.sidecars.transcription, node.sidecars.textEmbedding]) {
      for (const model of sidecar?.models ?? []) names.add(model.name);
    }
  }
  return {
    nodes_total: snapshot.nodes.length,
    nodes_online: count('online'),
    nodes_degraded: count('degraded'),
    nodes_offline: count('offline'),
    models_loaded: placeable.reduce((sum, node) => sum + node.loaded.length, 0),
    models_available: names.size,
    requests_active: placeable.reduce((sum, node) => sum + node.requestsActive, 0),
  };
}

const UNKNOWN_FRESHNESS: SnapshotFreshness = { ageMs: undefined, refreshFailed: false };

export function toFleetStatus(
  snapshot: FleetSnapshot,
  queues: readonly QueueEntry[],
  now: number,
  health: readonly NodeHealthEntry[] = [],
  freshness: SnapshotFreshness = UNKNOWN_FRESHNESS,
  routing?: RoutingFacts,
): FleetStatus {
  const byNode = new Map<string, Map<string, NodeHealthEntry>>();
  for (const entry of health) {
    const entries = byNode.get(entry.nodeId) ?? new Map<string, NodeHealthEntry>();
    entries.set(entry.backend, entry);
    byNode.set(entry.nodeId, entries);
  }
  return {
    fleet: fleetTotals(snapshot),
    nodes: snapshot.nodes.map((node) => nodeStatusEntry(node, now, byNode.get(node.id))),
    queues: queueStates(queues),
    snapshot_age_ms: freshness.ageMs === undefined ? null : Math.round(freshness.ageMs),
    snapshot_refresh_failed: freshness.refreshFailed,
    ...(routing !== undefined ? { routing: routingStatus(routing) } : {}),
    timestamp: Math.floor(now / 1000),
  };
}
