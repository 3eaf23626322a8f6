/**
 * `GET /api/ps` body (HTTP interface §2 "Loaded model entry", §4.4; protocols.md §2.8): one entry per
 * (online or degraded node, loaded model), with `model` and `expires_at` (Open WebUI keys on them) and
 * `fleet_node`; sorted by remaining lifetime (latest `expires_at` first), then node id.
 *
 * `expires_at` is always an RFC 3339 time (Open WebUI parses it with `datetime.fromisoformat`): the
 * node's own value when it sent one (listed nodes: Ollama's `/api/ps`); else — node agents, whose
 * heartbeat carries no expiry or keep-alive — Ollama's default keep-alive of 5 minutes after the node's
 * last report. Digest and details come from the loaded entry, filled in from the node's on-disk entry
 * (which `/api/show` describes); what no one reported is left out, never sent as "" (issue 20 item 6). Pure.
 */
import type { FleetSnapshot, LoadedModel, NodeView } from '../fleet/node';
import { isPlaceable } from '../fleet/snapshot';
import { digestField, reportedDetails } from './reported-details';

/** Ollama's default `keep_alive` (OLLAMA_KEEP_ALIVE unset): a model unloads 5 minutes after its last use. */
export const OLLAMA_DEFAULT_KEEP_ALIVE_MS = 5 * 60_000;

export interface OllamaPsEntry {
  readonly name: string;
  readonly model: string;
  readonly size: number;
  readonly size_vram: number;
  /** Omitted when no node reported it. */
  readonly digest?: string;
  readonly details: Readonly<Record<string, unknown>>;
  /** RFC 3339, always. */
  readonly expires_at: string;
  /** Omitted when the node did not say (Ollama omits it too). */
  readonly context_length?: number;
  readonly fleet_node: string;
}

export interface OllamaPsList {
  readonly models: readonly OllamaPsEntry[];
}

/** The node's own expiry when it is a time, else the default keep-alive after the node's last report. */
function expiresAt(node: NodeView, loaded: LoadedModel): string {
  if (loaded.expiresAt !== '' && !Number.isNaN(Date.parse(loaded.expiresAt))) return loaded.expiresAt;
  return new Date(node.lastSeenAt + OLLAMA_DEFAULT_KEEP_ALIVE_MS).toISOString();
}

function psEntry(node: NodeView, loaded: LoadedModel): OllamaPsEntry {
  const onDisk = node.models.find((model) => model.name === loaded.name);
  return {
    name: loaded.name,
    model: loaded.name,
    size: loaded.size,
    size_vram: loaded.sizeVram,
    ...digestField(loaded.digest !== '' ? loaded.digest : (onDisk?.digest ?? '')),
    details: reportedDetails(onDisk?.details ?? {}, loaded.details),
    expires_at: expiresAt(node, loaded),
    ...(loaded.contextLength !== undefined ? { context_length: loaded.contextLength } : {}),
    fleet_node: node.id,
  };
}

function compareEntries(a: OllamaPsEntry, b: OllamaPsEntry): number {
  const byExpiry = Date.parse(b.expires_at) - Date.parse(a.expires_at);
  if (byExpiry !== 0) return byExpiry;
  if (a.fleet_node !== b.fleet_node) return a.fleet_node < b.fleet_node ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function toApiPs(snapshot: FleetSnapshot): OllamaPsList {
  const models: OllamaPsEntry[] = [];
  for (const node of snapshot.nodes) {
    if (!isPlaceable(node)) continue;
    for (const loaded of node.loaded) models.push(psEntry(node, loaded));
  }
  models.sort(compareEntries);
  return { models };
}
