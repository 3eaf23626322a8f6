/**
 * A listed node's poll (ARCHITECTURE.md §8.1: `GET /api/tags`, `/api/ps`, `/api/version`, plus cached
 * `/api/show` answers) → the node's record, and what a failed poll changes. Ollama reports no memory,
 * CPU or hardware, so those stay unknown. Shapes: research/protocols.md §2.7–2.9. Pure: responses
 * arrive parsed (lib/core/wire/ollama-node), the clock as `now`.
 */
import type { OllamaPsResponse, OllamaShowResponse, OllamaTagsModel, OllamaTagsResponse } from '../wire/ollama-node';
import { capabilitiesOrInferred, familyOf, kindFromCapabilities } from './model-kind';
import type { LoadedModel, NodeModel, NodeRecord } from './node';
import { nextRecentlyUnloaded } from './recently-unloaded';

/** What `/api/show` says about a model that the poll keeps (cached: it rarely changes). */
export interface ShowInfo {
  readonly capabilities: readonly string[];
  /** The trained window, `model_info["<general.architecture>.context_length"]`. */
  readonly contextLength?: number;
  readonly architecture?: string;
  /** Ollama's `details` (format, family, parameter_size, …): what a heartbeat may not carry. */
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface PollResult {
  readonly id: string;
  readonly url: string;
  readonly tags: OllamaTagsResponse;
  readonly ps: OllamaPsResponse;
  /** `/api/version`'s `version`; undefined keeps the previous one. */
  readonly version?: string | undefined;
  /** Cached `/api/show` answers by model name. */
  readonly shows: ReadonlyMap<string, ShowInfo>;
  readonly previous?: NodeRecord | undefined;
  readonly now: number;
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function contextLengthFrom(modelInfo: Readonly<Record<string, unknown>>, architecture: string | undefined) {
  if (architecture !== undefined) {
    const key = `${architecture}.context_length`;
    return Object.hasOwn(modelInfo, key) ? positiveInteger(modelInfo[key]) : undefined;
  }
  // No architecture key: a GGUF model has exactly one `<arch>.context_length`.
  const key = Object.keys(modelInfo).find((name) => name.endsWith('.context_length'));
  return key === undefined ? undefined : positiveInteger(modelInfo[key]);
}

/** The parts of an `/api/show` answer the router keeps. */
export function showInfoFromResponse(show: OllamaShowResponse): ShowInfo {
  const modelInfo = show.model_info ?? {};
  const rawArchitecture = Object.hasOwn(modelInfo, 'general.architecture')
    ? modelInfo['general.architecture']
    : undefined;
  const architecture = typeof rawArchitecture === 'string' && rawArchitecture !== '' ? rawArchitecture : undefined;
  const contextLength = contextLengthFrom(modelInfo, architecture);
  const details = show.details ?? undefined;
  return {
    capabilities: show.capabilities ?? [],
    ...(contextLength !== undefined ? { contextLength } : {}),
    ...(architecture !== undefined ? { architecture } : {}),
    ...(details !== undefined && Object.keys(details).length > 0 ? { details: { ...details } } : {}),
  };
}

function tagsModel(entry: OllamaTagsModel, show: ShowInfo | undefined): NodeModel {
  const details: Record<string, unknown> = { ...entry.details };
  const reported = entry.capabilities !== null && entry.capabilities !== undefined && entry.capabilities.length > 0;
  const capabilities = capabilitiesOrInferred(
    reported ? entry.capabilities : show?.capabilities,
    entry.name,
    familyOf(details),
  );
  // Newer Ollama also lists the trained window in `details`; `/api/show` is the authority.
  const { context_length: detailsContext } = details as { readonly context_length?: unknown };
  const contextLength = show?.contextLength ?? positiveInteger(detailsContext);
  return {
    name: entry.name,
    kind: kindFromCapabilities(capabilities),
    size: entry.size ?? 0,
    digest: entry.digest ?? '',
    modifiedAt: entry.modified_at ?? '',
    details,
    capabilities,
    ...(contextLength !== undefined ? { contextLength } : {}),
    ...(reported || show !== undefined ? { described: true as const } : {}),
  };
}

function psLoaded(ps: OllamaPsResponse): LoadedModel[] {
  return (ps.models ?? []).map((entry) => {
    const contextLength = positiveInteger(entry.context_length);
    return {
      name: entry.name,
      size: entry.size ?? 0,
      sizeVram: entry.size_vram ?? 0,
      expiresAt: entry.expires_at ?? '',
      digest: entry.digest ?? '',
      details: { ...entry.details },
      ...(contextLength !== undefined ? { contextLength } : {}),
    };
  });
}

/** The record after a good poll (source `listed`): `lastSeenAt` moves to `now`, the last error is cleared. */
export function nodeFromPoll(poll: PollResult): NodeRecord {
  const { previous, now } = poll;
  const models = (poll.tags.models ?? [])
    .map((entry) => tagsModel(entry, poll.shows.get(entry.name)))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const loaded = psLoaded(poll.ps);
  const version = poll.version ?? previous?.version;
  return {
    id: poll.id,
    source: 'listed',
    url: poll.url,
    ...(version !== undefined ? { version } : {}),
    firstSeenAt: previous?.firstSeenAt ?? now,
    lastSeenAt: now,
    draining: false,
    hardware: previous?.hardware ?? {},
    models,
    loaded,
    recentlyUnloaded: nextRecentlyUnloaded(previous, loaded, now),
    // Ollama reports no in-flight count; the router's own queues know better.
    requestsActive: 0,
    numParallel: previous?.numParallel ?? 1,
    ...(previous?.maxLoadedModels !== undefined ? { maxLoadedModels: previous.maxLoadedModels } : {}),
    sidecars: {},
  };
}

/** A failed poll, as the operator reads it (`detail`) and as a client may (`words`). */
export interface PollFailure {
  readonly detail: string;
  readonly words: string;
}

/** A failed poll: everything is kept and `lastSeenAt` does not move, so the node ages to degraded, then offline. */
export function pollFailed(previous: NodeRecord, failure: PollFailure, now: number): NodeRecord {
  return { ...previous, lastErrorAt: now, lastError: failure.detail, lastErrorWords: failure.words };
}
