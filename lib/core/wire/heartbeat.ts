/**
 * The node agent heartbeat (ARCHITECTURE.md §8.2; Ollama Herd's `HeartbeatPayload`, anchor §1.3): what a
 * `herd-node` POSTs to `/heartbeat` every 5 s, or the one-line drain message it sends when it stops.
 * Objects are loose (agents add fields over time), optional fields accept `null` (real agents send
 * `image: null`, `temperature_c: null`), and a bad payload names its first offending field so the
 * handler can answer 400 instead of the reference's 500. Pure.
 */
import { type InferLazy, lazySchema } from './lazy-schema';
import { parseWith, type WireParseResult } from './parse-with';
import * as z from './zod';

const nodeId = lazySchema(() =>
  z.string().check(z.trim(), z.minLength(1, 'must be a non-empty string'), z.maxLength(256)),
);
const gigabytes = lazySchema(() => z.number().check(z.nonnegative()));
const count = lazySchema(() => z.number().check(z.int(), z.nonnegative()));
/** Sidecar ports: 0 means "no such sidecar" in the agent protocol. */
const port = lazySchema(() => z.number().check(z.int(), z.gte(0), z.lte(65535)));
const text = lazySchema(() => z.string());

const memoryPressure = lazySchema(() => z.enum(['normal', 'warn', 'critical']));

const cpuSchema = lazySchema(() =>
  z.looseObject({
    cores_physical: count(),
    utilization_pct: z.number().check(z.nonnegative()),
  }),
);

const memorySchema = lazySchema(() =>
  z.looseObject({
    total_gb: gigabytes(),
    used_gb: gigabytes(),
    available_gb: gigabytes(),
    pressure: z.pipe(
      z.nullish(memoryPressure()),
      z.transform((value) => value ?? 'normal'),
    ),
  }),
);

const thermalSchema = lazySchema(() =>
  z.looseObject({
    state: z.nullish(text()),
    temperature_c: z.nullish(z.number()),
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
    name: z.string().check(z.minLength(1)),
    /** Binary GB (bytes / 2^30), as the agent's `/api/ps` reader rounds it. */
    size_gb: gigabytes(),
    context_length: z.nullish(count()),
    requests_active: z.nullish(count()),
    parameter_size: z.nullish(text()),
    quantization: z.nullish(text()),
  }),
);

/** Per-model `/api/tags` metadata (newer agents; `null` on a heartbeat means "unchanged since last sent"). */
const modelMetaSchema = lazySchema(() =>
  z.looseObject({
    modified_at: z.nullish(text()),
    digest: z.nullish(text()),
    format: z.nullish(text()),
    family: z.nullish(text()),
    families: z.nullish(z.array(text())),
    parameter_size: z.nullish(text()),
    quantization_level: z.nullish(text()),
    parent_model: z.nullish(text()),
    capabilities: z.nullish(z.array(text())),
  }),
);

const ollamaSchema = lazySchema(() =>
  z.looseObject({
    // The reference agent defaults both lists to [] (it sends empty lists when its Ollama is down).
    models_loaded: z._default(z.array(loadedModelSchema()), []),
    models_available: z._default(z.array(text()), []),
    requests_active: z.nullish(count()),
    /** Decimal GB (bytes / 1e9) per on-disk model. */
    models_available_sizes: z.nullish(z.record(text(), gigabytes())),
    models_available_meta: z.nullish(z.record(text(), modelMetaSchema())),
    /** 0 = not reported. */
    num_parallel: z.nullish(count()),
    /** 0 = not reported. */
    max_loaded_models: z.nullish(count()),
    /** The node's Ollama version, when the agent reports it. */
    version: z.nullish(text()),
  }),
);

const sidecarModelSchema = lazySchema(() =>
  z.looseObject({ name: z.string().check(z.minLength(1)), binary: z.nullish(text()) }),
);

const imageSchema = lazySchema(() =>
  z.looseObject({
    models_available: z._default(z.array(sidecarModelSchema()), []),
    generating: z.nullish(z.boolean()),
  }),
);

const transcriptionSchema = lazySchema(() =>
  z.looseObject({
    models_available: z._default(z.array(sidecarModelSchema()), []),
    transcribing: z.nullish(z.boolean()),
  }),
);

const textEmbeddingSchema = lazySchema(() =>
  z.looseObject({
    models_available: z._default(
      z.array(
        z.looseObject({
          name: z.string().check(z.minLength(1)),
          dimensions: z.nullish(count()),
          kind: z.nullish(text()),
        }),
      ),
      [],
    ),
    processing: z.nullish(z.boolean()),
  }),
);

/** A full heartbeat: the node's whole state, sent every 5 s (no deltas). */
export const fullHeartbeatSchema = lazySchema(() =>
  z.looseObject({
    node_id: nodeId(),
    cpu: cpuSchema(),
    memory: memorySchema(),
    ollama: ollamaSchema(),
    arch: z.nullish(text()),
    timestamp: z.nullish(z.number().check(z.nonnegative())),
    thermal: z.nullish(thermalSchema()),
    disk: z.nullish(diskSchema()),
    draining: z.nullish(z.boolean()),
    agent_version: z.nullish(text()),
    chip: z.nullish(text()),
    memory_bandwidth_gbps: z.nullish(z.number().check(z.nonnegative())),
    ollama_host: z.nullish(text()),
    lan_ip: z.nullish(text()),
    image: z.nullish(imageSchema()),
    image_port: z.nullish(port()),
    transcription: z.nullish(transcriptionSchema()),
    transcription_port: z.nullish(port()),
    text_embedding: z.nullish(textEmbeddingSchema()),
    text_embedding_port: z.nullish(port()),
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
