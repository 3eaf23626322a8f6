/**
 * The standard `OTEL_*` variables that apply to exporting the router's spans (issue 44 item 2), read once
 * into settings: undefined — nothing exported, nothing of OpenTelemetry loaded — unless
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and not with
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. The names and defaults are the OpenTelemetry
 * specification's ("Environment Variable Specification", "OTLP Exporter Configuration"); the trace-specific
 * variable wins over the general one. A value that cannot mean anything stops the router naming it, as a
 * bad `FLEET_*` setting does. Pure: the environment comes in as a parameter.
 */

export type TraceSampler =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

export interface OtelSettings {
  /** Where spans are POSTed: the traces endpoint as given, or `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
  readonly url: string;
  /** Request headers (`OTEL_EXPORTER_OTLP_HEADERS`, then the traces ones over them), values URL-decoded. */
  readonly headers: Readonly<Record<string, string>>;
  readonly compression: 'gzip' | 'none';
  /** How long one export may take, ms (`OTEL_EXPORTER_OTLP_TIMEOUT`, default 10,000). */
  readonly timeoutMs: number;
  /** The resource: `service.name` (`OTEL_SERVICE_NAME`, default `fleet-router`) and `OTEL_RESOURCE_ATTRIBUTES`. */
  readonly resource: Readonly<Record<string, string>>;
  readonly sampler: TraceSampler;
  /** The ratio of the `traceidratio` samplers, 0 to 1 (`OTEL_TRACES_SAMPLER_ARG`, default 1). */
  readonly samplerRatio: number;
  /** The batch span processor's `OTEL_BSP_*`: delay between exports, queue bound, batch size, ms and counts. */
  readonly scheduleDelayMs: number;
  readonly maxQueueSize: number;
  readonly maxExportBatchSize: number;
}

type Env = Readonly<Record<string, string | undefined>>;

const SAMPLERS: readonly TraceSampler[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/** The settings the environment asks for, or undefined when it asks for no export. */
export function parseOtelSettings(env: Env): OtelSettings | undefined {
  if (value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const exporter = value(env, 'OTEL_TRACES_EXPORTER');
  if (exporter !== undefined && exporter.toLowerCase() === 'none') return undefined;
  const url = tracesUrl(env);
  if (url === undefined) return undefined;
  const service = value(env, 'OTEL_SERVICE_NAME');
  const resource = { 'service.name': 'fleet-router', ...keyValues(env, 'OTEL_RESOURCE_ATTRIBUTES') };
  if (service !== undefined) resource['service.name'] = service;
  const maxQueueSize = count(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048);
  return Object.freeze({
    url: checkedProtocol(env, url),
    headers: Object.freeze({
      ...keyValues(env, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...keyValues(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    }),
    compression: compression(env),
    timeoutMs: count(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', count(env, 'OTEL_EXPORTER_OTLP_TIMEOUT', 10_000)),
    resource: Object.freeze(resource),
    ...sampler(env),
    scheduleDelayMs: count(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000),
    maxQueueSize,
    // The specification: a batch larger than the queue is the queue.
    maxExportBatchSize: Math.min(count(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512), maxQueueSize),
  });
}

/** A variable's value, trimmed; undefined when unset or empty (the specification treats both alike). */
function value(env: Env, name: string): string | undefined {
  const text = env[name]?.trim();
  return text === undefined || text === '' ? undefined : text;
}

function tracesUrl(env: Env): string | undefined {
  const traces = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (traces !== undefined) return checkedUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces);
  const base = value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (base === undefined) return undefined;
  checkedUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base);
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

function checkedUrl(name: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${name} must be an http:// or https:// URL, not "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${name} must be an http:// or https:// URL, not "${text}"`);
  }
  return text;
}

/**
 * `url`, once the protocol is the one the router speaks: OTLP over HTTP with protobuf, the specification's
 * default (its JSON and gRPC are optional, and would add their code to every routing function).
 */
function checkedProtocol(env: Env, url: string): string {
  const name =
    value(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') === undefined
      ? 'OTEL_EXPORTER_OTLP_PROTOCOL'
      : 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL';
  const text = value(env, name) ?? 'http/protobuf';
  if (text === 'http/protobuf') return url;
  throw new Error(
    `${name} must be http/protobuf (OTLP over HTTP; grpc and http/json are not supported), not "${text}"`,
  );
}

function compression(env: Env): 'gzip' | 'none' {
  const name =
    value(env, 'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION') === undefined
      ? 'OTEL_EXPORTER_OTLP_COMPRESSION'
      : 'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION';
  const text = value(env, name) ?? 'none';
  if (text === 'gzip' || text === 'none') return text;
  throw new Error(`${name} must be gzip or none, not "${text}"`);
}

function sampler(env: Env): Pick<OtelSettings, 'sampler' | 'samplerRatio'> {
  const text = value(env, 'OTEL_TRACES_SAMPLER')?.toLowerCase() ?? 'parentbased_always_on';
  const found = SAMPLERS.find((name) => name === text);
  if (found === undefined) throw new Error(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, not "${text}"`);
  const arg = value(env, 'OTEL_TRACES_SAMPLER_ARG');
  if (arg === undefined || !found.endsWith('traceidratio')) return { sampler: found, samplerRatio: 1 };
  const ratio = Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, not "${arg}"`);
  }
  return { sampler: found, samplerRatio: ratio };
}

/** A whole number of at least 0 (ms or spans), `fallback` when unset; anything else names the variable. */
function count(env: Env, name: string, fallback: number): number {
  const text = value(env, name);
  if (text === undefined) return fallback;
  const parsed = Number(text);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a whole number, not "${text}"`);
  return parsed;
}

/** `key1=value1,key2=value2`, keys and values trimmed and URL-decoded (W3C Baggage's octets). */
function keyValues(env: Env, name: string): Record<string, string> {
  const text = value(env, name);
  const pairs: Record<string, string> = {};
  if (text === undefined) return pairs;
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const at = entry.indexOf('=');
    const key = at < 0 ? '' : decoded(name, entry.slice(0, at).trim());
    // Never the text itself in the message: headers carry credentials.
    if (key === '') throw new Error(`${name} must be key=value pairs separated by commas`);
    pairs[key] = decoded(name, entry.slice(at + 1).trim());
  }
  return pairs;
}

function decoded(name: string, text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    throw new Error(`${name} has a key or value that is not URL-encoded text`);
  }
}
