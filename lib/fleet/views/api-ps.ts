/**
 * `GET /api/ps` body (HTTP interface §2 "Loaded model entry", §4.4; protocols.md §2.8): one entry per
 * (online or degraded node, loaded model), with `model` and `expires_at` (Open WebUI keys on them) and
 * `fleet_node`; sorted by remaining lifetime (latest `expires_at` first, unknown last), then node id.
 * Digest and details fall back to the node's on-disk entry when the loaded entry lacks them. Pure.
 */
import type { FleetSnapshot, LoadedModel, NodeView } from '../node';
import { isPlaceable } from '../snapshot';

export interface OllamaPsEntry {
  readonly name: string;
  readonly model: string;
  readonly size: number;
  readonly size_vram: number;
  readonly digest: string;
  readonly details: Readonly<Record<string, unknown>>;
  readonly expires_at: string;
  /** Omitted when the node did not say (Ollama omits it too). */
  readonly context_length?: number;
  readonly fleet_node: string;
}

export interface OllamaPsList {
  readonly models: readonly OllamaPsEntry[];
}

function psEntry(node: NodeView, loaded: LoadedModel): OllamaPsEntry {
  const onDisk = node.models.find((model) => model.name === loaded.name);
  const details = Object.keys(loaded.details).length > 0 ? loaded.details : (onDisk?.details ?? {});
  return {
    name: loaded.name,
    model: loaded.name,
    size: loaded.size,
    size_vram: loaded.sizeVram,
    digest: loaded.digest !== '' ? loaded.digest : (onDisk?.digest ?? ''),
    details,
    expires_at: loaded.expiresAt,
    ...(loaded.contextLength !== undefined ? { context_length: loaded.contextLength } : {}),
    fleet_node: node.id,
  };
}

function expiryMs(entry: OllamaPsEntry): number {
  const at = entry.expires_at === '' ? Number.NaN : Date.parse(entry.expires_at);
  return Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at;
}

function compareEntries(a: OllamaPsEntry, b: OllamaPsEntry): number {
  const byExpiry = expiryMs(b) - expiryMs(a);
  if (byExpiry !== 0 && !Number.isNaN(byExpiry)) return byExpiry;
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
