/**
 * The node agent heartbeat (contract §3.2; Ollama Herd's `HeartbeatPayload`, anchor §1.3): what a
 * `herd-node` POSTs to `/heartbeat` every 5 s, or the one-line drain message it sends when it stops.
 * Objects are loose (agents add fields over time), optional fields accept `null` (real agents send
 * `image: null`, `temperature_c: null`), and a bad payload names its first offending field so the
 * handler can answer 400 instead of the reference's 500. Pure.
 */
import * as z from 'zod';
import { type InferLazy, lazySchema } from './lazy-schema';
import { parseWith, type WireParseResult } from './parse-with';

const nodeId = lazySchema(() => z.string().trim().min(1, 'must be a non-empty string').max(256));
const gigabytes = lazySchema(() => z.number().nonnegative());
const count = lazySchema(() => z.number().int().nonnegative());
/** Sidecar ports: 0 means "no such sidecar" in the agent protocol. */
const port = lazySchema(() => z.number().int().min(0).max(65535));
const text = lazySchema(() => z.string());

const memoryPressure = lazySchema(() => z.enum(['normal', 'warn', 'critical']));

const cpuSchema = lazySchema(() =>
  z.looseObject({
    cores_physical: count(),
    utilization_pct: z.number().nonnegative(),
  }),
);

const memorySchema = lazySchema(() =>
  z.looseObject({
    total_gb: gigabytes(),
    used_gb: gigabytes(),
    available_gb: gigabytes(),
    pressure: memoryPressure()
      .nullish()
      .transform((value) => value ?? 'normal'),
  }),
);

const thermalSchema = lazySchema(() =>
  z.looseObject({
    state: text().nullish(),
    temperature_c: z.number().nullish(),
  }),
);

const diskSchema = lazySchema(() =>
  z.looseObject({
    total_gb: gigabytes(),
    used_gb: gigabytes(),
    available_gb: gigabytes(),
  }),
);

const loadedModelSchema = lazySchema(() =>
  z.looseObject({
    name: z.string().min(1),
    /** Binary GB (bytes / 2^30), as the agent's `/api/ps` reader rounds it. */
    size_gb: gigabytes(),
    context_length: count().nullish(),
    requests_active: count().nullish(),
    parameter_size: text().nullish(),
    quantization: text().nullish(),
  }),
);

/** Per-model `/api/tags` metadata (newer agents; `null` on a heartbeat means "unchanged since last sent"). */
const modelMetaSchema = lazySchema(() =>
  z.looseObject({
    modified_at: text().nullish(),
    digest: text().nullish(),
    format: text().nullish(),
    family: text().nullish(),
    families: z.array(text()).nullish(),
    parameter_size: text().nullish(),
    quantization_level: text().nullish(),
    parent_model: text().nullish(),
    capabilities: z.array(text()).nullish(),
  }),
);

const ollamaSchema = lazySchema(() =>
  z.looseObject({
    // The reference agent defaults both lists to [] (it sends empty lists when its Ollama is down).
    models_loaded: z.array(loadedModelSchema()).default([]),
    models_available: z.array(text()).default([]),
    requests_active: count().nullish(),
    /** Decimal GB (bytes / 1e9) per on-disk model. */
    models_available_sizes: z.record(text(), gigabytes()).nullish(),
    models_available_meta: z.record(text(), modelMetaSchema()).nullish(),
    /** 0 = not reported. */
    num_parallel: count().nullish(),
    /** 0 = not reported. */
    max_loaded_models: count().nullish(),
    /** The node's Ollama version, when the agent reports it. */
    version: text().nullish(),
  }),
);

const sidecarModelSchema = lazySchema(() => z.looseObject({ name: z.string().min(1), binary: text().nullish() }));

const imageSchema = lazySchema(() =>
  z.looseObject({
    models_available: z.array(sidecarModelSchema()).default([]),
    generating: z.boolean().nullish(),
  }),
);

const transcriptionSchema = lazySchema(() =>
  z.looseObject({
    models_available: z.array(sidecarModelSchema()).default([]),
    transcribing: z.boolean().nullish(),
  }),
);

const textEmbeddingSchema = lazySchema(() =>
  z.looseObject({
    models_available: z
      .array(z.looseObject({ name: z.string().min(1), dimensions: count().nullish(), kind: text().nullish() }))
      .default([]),
    processing: z.boolean().nullish(),
  }),
);

/** A full heartbeat: the node's whole state, sent every 5 s (no deltas). */
export const fullHeartbeatSchema = lazySchema(() =>
  z.looseObject({
    node_id: nodeId(),
    cpu: cpuSchema(),
    memory: memorySchema(),
    ollama: ollamaSchema(),
    arch: text().nullish(),
    timestamp: z.number().nonnegative().nullish(),
    thermal: thermalSchema().nullish(),
    disk: diskSchema().nullish(),
    draining: z.boolean().nullish(),
    agent_version: text().nullish(),
    chip: text().nullish(),
    memory_bandwidth_gbps: z.number().nonnegative().nullish(),
    ollama_host: text().nullish(),
    lan_ip: text().nullish(),
    image: imageSchema().nullish(),
    image_port: port().nullish(),
    transcription: transcriptionSchema().nullish(),
    transcription_port: port().nullish(),
    text_embedding: textEmbeddingSchema().nullish(),
    text_embedding_port: port().nullish(),
  }),
);

/** `{"node_id": …, "draining": true}`: the agent is stopping; the node leaves routing at once. */
export const drainHeartbeatSchema = lazySchema(() =>
  z.object({
    node_id: nodeId(),
    draining: z.literal(true),
  }),
);

/** Either form; `parseHeartbeat` picks the branch itself so errors name a field, not "invalid union". */
export const heartbeatSchema = z.lazy(() => z.union([fullHeartbeatSchema(), drainHeartbeatSchema()]));

export type FullHeartbeat = InferLazy<typeof fullHeartbeatSchema>;
export type DrainHeartbeat = InferLazy<typeof drainHeartbeatSchema>;
export type HeartbeatPayload = FullHeartbeat | DrainHeartbeat;

export type HeartbeatParseResult = WireParseResult<HeartbeatPayload>;

/** True for the drain message (it carries no metrics; a full heartbeat always has `cpu`). */
export function isDrainHeartbeat(payload: HeartbeatPayload): payload is DrainHeartbeat {
  return !('cpu' in payload);
}

function looksLikeDrain(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { draining, cpu, memory, ollama } = body as Partial<Record<'draining' | 'cpu' | 'memory' | 'ollama', unknown>>;
  return draining === true && cpu === undefined && memory === undefined && ollama === undefined;
}

/**
 * Validates a heartbeat body. On failure, `field` is the dotted path of the first offending field
 * (`memory.total_gb`, `ollama.models_loaded.0.name`), or `body` when the body itself is not an object.
 */
export function parseHeartbeat(body: unknown): HeartbeatParseResult {
  return parseWith<HeartbeatPayload>(
    looksLikeDrain(body) ? drainHeartbeatSchema() : fullHeartbeatSchema(),
    body,
    'invalid heartbeat',
  );
}
