/**
 * `GET /api/tags` body (HTTP interface §2 "Model entry, GET /api/tags", §4.4; protocols.md §2.7): the
 * union of models over online and degraded nodes, one entry per name, each with `model` (Open WebUI
 * drops entries without it), `details.fleet_nodes`, and `details.type: "image"` for image models
 * (sidecar ones, size 0, and Ollama-native ones). Speech-to-text and text-embedding sidecar models are
 * not listed: chat clients would offer them as chat models. A digest or detail string no node reported
 * is left out rather than sent empty (issue 20 item 6). Pure.
 */
import type { FleetSnapshot, NodeModel, NodeView } from '../fleet/node';
import { isPlaceable } from '../fleet/snapshot';
import { digestField, reportedDetails } from './reported-details';

export interface OllamaTagsEntry {
  readonly name: string;
  readonly model: string;
  readonly modified_at: string;
  readonly size: number;
  /** Omitted when no node reported it. */
  readonly digest?: string;
  readonly details: Readonly<Record<string, unknown>> & { readonly fleet_nodes: readonly string[] };
  readonly capabilities?: readonly string[];
}

export interface OllamaTagsList {
  readonly models: readonly OllamaTagsEntry[];
}

/** Ollama's own values for "no parent" and "no families"; unknown format, family and sizes are left out. */
const DETAIL_DEFAULTS = { parent_model: '', families: [] };

interface TagsAccumulator {
  name: string;
  /** First-seen time of the first node holding it: the stand-in for an unknown `modified_at`. */
  firstSeenAt: number;
  nodes: string[];
  size: number;
  digest: string;
  modifiedAt: string;
  details: Readonly<Record<string, unknown>> | undefined;
  capabilities: readonly string[] | undefined;
  /** The capabilities came from a node's runtime, not from the name: no later guess replaces them. */
  described: boolean;
  image: boolean;
}

/** The entry for `name`, with `node` added to its holders (nodes arrive in id order, once per model). */
function holdEntry(entries: Map<string, TagsAccumulator>, name: string, node: NodeView): TagsAccumulator {
  let entry = entries.get(name);
  if (entry === undefined) {
    entry = {
      name,
      firstSeenAt: node.firstSeenAt,
      nodes: [],
      size: 0,
      digest: '',
      modifiedAt: '',
      details: undefined,
      capabilities: undefined,
      described: false,
      image: false,
    };
    entries.set(name, entry);
  }
  if (entry.nodes[entry.nodes.length - 1] !== node.id) entry.nodes.push(node.id);
  return entry;
}

/** Nodes are visited in id order, so "the first node that reports it" is the lowest id that does. */
function addRuntimeModel(entry: TagsAccumulator, model: NodeModel): void {
  if (entry.size === 0 && model.size > 0) entry.size = model.size;
  if (entry.digest === '' && model.digest !== '') entry.digest = model.digest;
  if (entry.modifiedAt === '' && model.modifiedAt !== '') entry.modifiedAt = model.modifiedAt;
  if (entry.details === undefined && Object.keys(model.details).length > 0) entry.details = model.details;
  const described = model.described === true;
  if (model.capabilities.length > 0 && (entry.capabilities === undefined || (described && !entry.described))) {
    entry.capabilities = model.capabilities;
    entry.described = described;
  }
  if (model.kind === 'image' || model.capabilities.includes('image')) entry.image = true;
}

function toEntry(entry: TagsAccumulator): OllamaTagsEntry {
  return {
    name: entry.name,
    model: entry.name,
    // Clients parse this as RFC 3339: when no node said, the holding node's first-seen time stands in.
    modified_at: entry.modifiedAt !== '' ? entry.modifiedAt : new Date(entry.firstSeenAt).toISOString(),
    size: entry.size,
    ...digestField(entry.digest),
    details: {
      ...reportedDetails(DETAIL_DEFAULTS, entry.details ?? {}),
      ...(entry.image ? { type: 'image' } : {}),
      fleet_nodes: [...entry.nodes].sort(),
    },
    ...(entry.capabilities !== undefined ? { capabilities: entry.capabilities } : {}),
  };
}

export function toApiTags(snapshot: FleetSnapshot): OllamaTagsList {
  const entries = new Map<string, TagsAccumulator>();
  for (const node of snapshot.nodes) {
    if (!isPlaceable(node)) continue;
    for (const model of node.models) addRuntimeModel(holdEntry(entries, model.name, node), model);
    for (const model of node.sidecars.image?.models ?? []) holdEntry(entries, model.name, node).image = true;
  }
  const models = [...entries.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(toEntry);
  return { models };
}
