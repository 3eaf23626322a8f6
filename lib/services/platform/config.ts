/**
 * Settings, read once from the `FLEET_*` environment (and the standard `OTEL_*` ones of span export) (ARCHITECTURE.md §7; docs/configuration.md lists the names
 * and defaults), validated, frozen and passed in. Tests build a config with `loadConfig({...})` instead of
 * mutating `process.env`.
 */

import { DEFAULT_AGING_MS, parseSharingPolicy, type SharingPolicy } from '../../core/queue/sharing-policy';
import { ROUTING_STRATEGIES, type RoutingStrategyName } from '../../core/scoring/routing-strategy';
import { lazySchema } from '../../core/wire/lazy-schema';
import * as z from '../../core/wire/zod';
import { type OtelSettings, parseOtelSettings } from '../telemetry/otel-settings';
import { corsOriginProblem } from './cors-origin-entry';
import { type ImageUrlAllow, parseImageUrlAllow } from './image-url-allow';
import { parseKeyEntry } from './key-entry';
import { readSsmSettings, ssmParameterNames } from './ssm-settings';

export interface ListedNode {
  readonly id: string;
  readonly url: string;
}

export interface FleetConfig {
  readonly port: number;
  readonly host: string;
  readonly nodes: readonly ListedNode[];
  readonly pollIntervalMs: number;
  readonly dataDir: string;
  /** Unset: the real DynamoDB service in AWS, the embedded stand-in in the emulator. */
  readonly dynamodbEndpoint: string | undefined;
  readonly table: string;
  readonly imageGeneration: boolean;
  readonly transcription: boolean;
  readonly corsOrigins: readonly string[] | undefined;
  readonly maxRetries: number;
  /**
   * How long a node may take to send its response headers to a chat request (a cold model load is
   * slow). A node that says nothing for this long is ejected (./routing/outlier-ejection).
   */
  readonly firstByteTimeoutMs: number;
  /** Outlier ejection: failures in a row that eject a node (0 = never), base and longest ejection. */
  readonly ejection: EjectionSettings;
  /**
   * Client keys (`FLEET_API_KEYS`), as written: each `key` or `name:key` (./key-entry). They route requests
   * and read; they do not change the fleet.
   */
  readonly apiKeys: readonly string[] | undefined;
  /**
   * Operator keys (`FLEET_ADMIN_KEYS`, issue 46), written the same way: everything a client key may do, and
   * the changes to the fleet — pulls, deletes, copies, settings, benchmarks (ARCHITECTURE.md §3.10).
   */
  readonly adminKeys: readonly string[] | undefined;
  /**
   * Node agents' own keys (`FLEET_NODE_KEYS`): the only ones the heartbeat routes accept, and accepted
   * nowhere else. Unset: heartbeats are open while `apiKeys` is unset too, refused (401) once it is set.
   */
  readonly nodeKeys: readonly string[] | undefined;
  /** Requests a node runs at once per model, by node id, over what the node reports (default 1). */
  readonly nodeConcurrency: ReadonlyMap<string, number>;
  /**
   * Admission (issue 24): requests that may wait per node:model beyond its concurrency, and the longest
   * one waits. The defaults are as patient as an Ollama alone: it queues 512 (OLLAMA_MAX_QUEUE) and lets a
   * request wait as long as its client does — 10 minutes for the OpenAI and Anthropic SDKs.
   */
  readonly queueMaxPending: number;
  readonly queueTimeoutMs: number;
  /**
   * How routing orders a request's candidates (`FLEET_ROUTING_STRATEGY`, issue 41): `score` (the default:
   * expected time to first token and the score's other signals), `least-busy`, `round-robin`, `random`.
   * Elimination (model, health, ejection, context) is the same for every strategy.
   */
  readonly routingStrategy: RoutingStrategyName;
  /**
   * Sharing the fleet between applications (issue 43): priorities' aging, each application's default
   * priority, weight in the fair rotation and limit on requests in flight (lib/core/queue/sharing-policy).
   */
  readonly sharing: SharingPolicy;
  /**
   * The lifetime of a model pull's lease on its lock in the table (`FLEET_PULL_LEASE_MS`): renewed every
   * third of it while the pull runs, so it is at most how long a router that died mid-pull blocks the model.
   */
  readonly pullLeaseMs: number;
  /** Node liveness (ARCHITECTURE.md §8.4): degraded after this long without a good poll or heartbeat… */
  readonly degradedAfterMs: number;
  /** …and offline after this long. */
  readonly offlineAfterMs: number;
  /** How old the in-memory fleet snapshot may get before routing refreshes it (ARCHITECTURE.md §3.5). */
  readonly snapshotMaxAgeMs: number;
  /** Past that age, after a freeze, how long a request waits for the fresh read (`FLEET_THAW_WAIT_MS`). */
  readonly snapshotWaitMs: number;
  /** Budget of each request to the table, SDK retries included (`FLEET_TABLE_TIMEOUT_MS`). */
  readonly tableTimeoutMs: number;
  /**
   * Client model ids → fleet models for the messages and responses styles (`FLEET_MODEL_MAP`); the key
   * `default` names the model used when nothing else resolves.
   */
  readonly modelMap: ReadonlyMap<string, string>;
  /** Messages and responses styles: ids no node has go to the best loaded model (else 404). */
  readonly autoRoute: boolean;
  readonly context: ContextSettings;
  /** Private destinations client-named image URLs may reach (`FLEET_IMAGE_URL_ALLOW`); none by default. */
  readonly imageUrlAllow: ImageUrlAllow;
  /**
   * Spans exported over OTLP/HTTP, from the standard `OTEL_*` variables (lib/services/telemetry/otel-settings);
   * undefined — nothing exported or loaded — unless an OTLP endpoint is set.
   */
  readonly otel: OtelSettings | undefined;
}

/** Outlier ejection (issue 19 item 4): see lib/services/dispatch/outlier-ejection. */
export interface EjectionSettings {
  /** 5xx answers or cut connections in a row that eject a node; a refused connect or no first byte ejects at once. 0 = off. */
  readonly consecutiveFailures: number;
  /** The first ejection's length; each ejection in a row doubles it… */
  readonly baseMs: number;
  /** …up to this. */
  readonly maxMs: number;
}

/** The three context layers of long sessions (issue: messages item 3); 0 turns a threshold off. */
export interface ContextSettings {
  /** Layer 1: clear old tool results once the prompt is estimated above this many tokens. */
  readonly clearTriggerTokens: number;
  /** Layer 1: the newest tool results kept intact. */
  readonly clearKeepRecent: number;
  /** Layer 2: summarise old tool results with a fleet model (off by default; fails open). */
  readonly compaction: boolean;
  /** Layer 2: summarise only when the prompt is above this many tokens. */
  readonly compactionBudgetTokens: number;
  /** Layer 2: the fleet model that summarises; unset = the best loaded chat model. */
  readonly compactionModel: string | undefined;
  /** Layer 3: prompts above this many tokens, after layers 1–2, are answered 413. */
  readonly maxPromptTokens: number;
}

const booleanText = () =>
  z.pipe(
    z.pipe(z.string().check(z.trim(), z.toLowerCase()), z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])),
    z.transform((value) => value === 'true' || value === '1' || value === 'yes' || value === 'on'),
  );

const integerText = (min: number, max: number) =>
  z.pipe(
    z.pipe(z.string().check(z.trim(), z.regex(/^\d+$/, 'must be a whole number')), z.transform(Number)),
    z.number().check(z.gte(min), z.lte(max)),
  );

const listText = () =>
  z.pipe(
    z.string(),
    z.transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    ),
  );

const nonEmptyText = () => z.string().check(z.trim(), z.minLength(1));

const envSchema = lazySchema(() =>
  z.object({
    FLEET_PORT: z._default(integerText(0, 65535), 11435),
    FLEET_HOST: z._default(nonEmptyText(), '127.0.0.1'),
    FLEET_NODES: z._default(listText(), []),
    FLEET_POLL_INTERVAL_MS: z._default(integerText(100, 3_600_000), 2000),
    FLEET_DATA_DIR: z._default(nonEmptyText(), './.fleet-data'),
    FLEET_DYNAMODB_ENDPOINT: z.optional(z.url()),
    FLEET_TABLE: z._default(
      z.string().check(z.trim(), z.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'is not a valid table name')),
      'fleet-router',
    ),
    FLEET_TABLE_TIMEOUT_MS: z._default(integerText(100, 60_000), 2000),
    FLEET_THAW_WAIT_MS: z._default(integerText(0, 60_000), 200),
    FLEET_IMAGE_GENERATION: z._default(booleanText(), false),
    FLEET_TRANSCRIPTION: z._default(booleanText(), false),
    FLEET_CORS_ORIGINS: z.optional(listText()),
    FLEET_MAX_RETRIES: z._default(integerText(0, 10), 2),
    FLEET_FIRST_BYTE_TIMEOUT_MS: z._default(integerText(1000, 3_600_000), 120_000),
    FLEET_EJECT_AFTER_FAILURES: z._default(integerText(0, 100), 3),
    FLEET_EJECT_BASE_MS: z._default(integerText(1000, 3_600_000), 30_000),
    FLEET_EJECT_MAX_MS: z._default(integerText(1000, 86_400_000), 300_000),
    FLEET_API_KEYS: z.optional(listText()),
    FLEET_NODE_KEYS: z.optional(listText()),
    FLEET_ADMIN_KEYS: z.optional(listText()),
    FLEET_NODE_CONCURRENCY: z._default(listText(), []),
    FLEET_QUEUE_MAX_PENDING: z._default(integerText(1, 100_000), 512),
    FLEET_QUEUE_TIMEOUT_MS: z._default(integerText(1000, 900_000), 600_000),
    FLEET_ROUTING_STRATEGY: z._default(z.enum(ROUTING_STRATEGIES), 'score'),
    FLEET_PRIORITY_AGING_MS: z._default(integerText(1000, 3_600_000), DEFAULT_AGING_MS),
    FLEET_APP_PRIORITIES: z._default(listText(), []),
    FLEET_APP_WEIGHTS: z._default(listText(), []),
    FLEET_APP_LIMITS: z._default(listText(), []),
    FLEET_PULL_LEASE_MS: z._default(integerText(1000, 3_600_000), 60_000),
    FLEET_MODEL_MAP: z.optional(z.string()),
    FLEET_AUTO_ROUTE: z._default(booleanText(), true),
    FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS: z._default(integerText(0, 10_000_000), 100_000),
    FLEET_CONTEXT_CLEAR_KEEP_RECENT: z._default(integerText(0, 1000), 3),
    FLEET_CONTEXT_COMPACTION: z._default(booleanText(), false),
    FLEET_CONTEXT_COMPACTION_BUDGET_TOKENS: z._default(integerText(0, 10_000_000), 20_000),
    FLEET_CONTEXT_COMPACTION_MODEL: z.optional(nonEmptyText()),
    FLEET_MAX_PROMPT_TOKENS: z._default(integerText(0, 10_000_000), 180_000),
    FLEET_IMAGE_URL_ALLOW: z._default(listText(), []),
  }),
);

/**
 * `FLEET_MODEL_MAP`: a JSON object (`{"claude-sonnet-4-5": "qwen3-coder:30b"}`) or a comma list of
 * `client-id=fleet-model` pairs.
 */
export function parseModelMap(text: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  if (text === undefined || text.trim() === '') return map;
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      throw new Error('FLEET_MODEL_MAP: not valid JSON');
    }
    for (const [id, model] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof model !== 'string' || model.trim() === '')
        throw new Error(`FLEET_MODEL_MAP: "${id}" must map to a model name`);
      map.set(id, model.trim());
    }
    return map;
  }
  for (const entry of trimmed.split(',')) {
    if (entry.trim() === '') continue;
    const equals = entry.indexOf('=');
    const id = entry.slice(0, Math.max(equals, 0)).trim();
    const model = entry.slice(equals + 1).trim();
    if (equals <= 0 || id === '' || model === '')
      throw new Error(`FLEET_MODEL_MAP: "${entry.trim()}" is not client-id=fleet-model`);
    map.set(id, model);
  }
  return map;
}

/** `gpu1=4,gpu2=2`: requests each node runs at once per model. */
function parseNodeConcurrency(entries: readonly string[]): Map<string, number> {
  const limits = new Map<string, number>();
  for (const entry of entries) {
    const [id, value] = entry.split('=').map((part) => part.trim());
    const limit = Number(value);
    if (id === undefined || id === '' || !Number.isInteger(limit) || limit < 1 || limit > 1024) {
      throw new Error(`FLEET_NODE_CONCURRENCY: "${entry}" is not node-id=whole number from 1 to 1024`);
    }
    limits.set(id, limit);
  }
  return limits;
}

/** Parses one `FLEET_NODES` entry: `url` or `id=url`; the id defaults to the URL's host:port. */
export function parseListedNode(entry: string): ListedNode {
  const equals = entry.indexOf('=');
  const hasId = equals > 0 && !entry.slice(0, equals).includes('/');
  const rawUrl = hasId ? entry.slice(equals + 1).trim() : entry;
  const withScheme = /^[a-z]+:\/\//i.test(rawUrl) ? rawUrl : `http://${rawUrl}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`FLEET_NODES: "${entry}" is not a URL or id=URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`FLEET_NODES: "${entry}" must be an http(s) URL`);
  }
  const base = `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  const id = hasId ? entry.slice(0, equals).trim() : url.host;
  return { id, url: base };
}

/** The three key lists, by the variable that sets each. */
const KEY_LISTS = ['FLEET_API_KEYS', 'FLEET_ADMIN_KEYS', 'FLEET_NODE_KEYS'] as const;
type KeyLists = { readonly [Variable in (typeof KEY_LISTS)[number]]?: readonly string[] | undefined };

/**
 * A key in two lists would let a client change the fleet or heartbeat (or a node agent chat): refused at
 * start, naming both variables. A name given to two keys would make two keys one in the traces: refused too.
 */
function checkKeyListsApart(lists: KeyLists): void {
  const listOf = new Map<string, string>();
  const named = new Map<string, string>();
  for (const variable of KEY_LISTS) {
    for (const entry of lists[variable] ?? []) {
      const { name, key } = parseKeyEntry(entry);
      const other = listOf.get(key);
      if (other !== undefined && other !== variable) {
        throw new Error(`${variable}: a key is also in ${other}; a key may be in one list only`);
      }
      listOf.set(key, variable);
      if (name === undefined) continue;
      const holder = named.get(name);
      if (holder !== undefined && holder !== key) {
        throw new Error(`${variable}: the name "${name}" is given to two keys; give each key a name of its own`);
      }
      named.set(name, key);
    }
  }
}

/** An entry that can never match an Origin header (a path, no scheme) is a mistake: refused at start. */
function checkCorsOrigins(origins: readonly string[] | undefined): void {
  for (const entry of origins ?? []) {
    const problem = corsOriginProblem(entry);
    if (problem !== undefined) throw new Error(`FLEET_CORS_ORIGINS: ${problem}`);
  }
}

/** Builds the frozen config from an environment; throws one error naming every bad variable. */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): FleetConfig {
  const present = Object.fromEntries(
    Object.entries(env).filter(([key, value]) => key.startsWith('FLEET_') && value !== undefined && value !== ''),
  );
  const parsed = envSchema().safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    throw new Error(`invalid configuration: ${problems.join('; ')}`);
  }
  const value = parsed.data;
  const nodes = value.FLEET_NODES.map(parseListedNode);
  const ids = new Set<string>();
  for (const node of nodes) {
    if (ids.has(node.id)) throw new Error(`FLEET_NODES: node id "${node.id}" is listed twice`);
    ids.add(node.id);
  }
  checkKeyListsApart(value);
  checkCorsOrigins(value.FLEET_CORS_ORIGINS);
  return Object.freeze({
    port: value.FLEET_PORT,
    host: value.FLEET_HOST,
    nodes: Object.freeze(nodes),
    pollIntervalMs: value.FLEET_POLL_INTERVAL_MS,
    dataDir: value.FLEET_DATA_DIR,
    dynamodbEndpoint: value.FLEET_DYNAMODB_ENDPOINT,
    table: value.FLEET_TABLE,
    imageGeneration: value.FLEET_IMAGE_GENERATION,
    transcription: value.FLEET_TRANSCRIPTION,
    corsOrigins: value.FLEET_CORS_ORIGINS,
    maxRetries: value.FLEET_MAX_RETRIES,
    firstByteTimeoutMs: value.FLEET_FIRST_BYTE_TIMEOUT_MS,
    ejection: Object.freeze({
      consecutiveFailures: value.FLEET_EJECT_AFTER_FAILURES,
      baseMs: value.FLEET_EJECT_BASE_MS,
      maxMs: Math.max(value.FLEET_EJECT_MAX_MS, value.FLEET_EJECT_BASE_MS),
    }),
    apiKeys: value.FLEET_API_KEYS,
    adminKeys: value.FLEET_ADMIN_KEYS,
    nodeKeys: value.FLEET_NODE_KEYS,
    nodeConcurrency: parseNodeConcurrency(value.FLEET_NODE_CONCURRENCY),
    queueMaxPending: value.FLEET_QUEUE_MAX_PENDING,
    queueTimeoutMs: value.FLEET_QUEUE_TIMEOUT_MS,
    routingStrategy: value.FLEET_ROUTING_STRATEGY,
    sharing: parseSharingPolicy({
      agingMs: value.FLEET_PRIORITY_AGING_MS,
      priorities: value.FLEET_APP_PRIORITIES,
      weights: value.FLEET_APP_WEIGHTS,
      limits: value.FLEET_APP_LIMITS,
    }),
    pullLeaseMs: value.FLEET_PULL_LEASE_MS,
    degradedAfterMs: 15_000,
    offlineAfterMs: 30_000,
    snapshotMaxAgeMs: 1000,
    snapshotWaitMs: value.FLEET_THAW_WAIT_MS,
    tableTimeoutMs: value.FLEET_TABLE_TIMEOUT_MS,
    modelMap: parseModelMap(value.FLEET_MODEL_MAP),
    autoRoute: value.FLEET_AUTO_ROUTE,
    context: Object.freeze({
      clearTriggerTokens: value.FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS,
      clearKeepRecent: value.FLEET_CONTEXT_CLEAR_KEEP_RECENT,
      compaction: value.FLEET_CONTEXT_COMPACTION,
      compactionBudgetTokens: value.FLEET_CONTEXT_COMPACTION_BUDGET_TOKENS,
      compactionModel: value.FLEET_CONTEXT_COMPACTION_MODEL,
      maxPromptTokens: value.FLEET_MAX_PROMPT_TOKENS,
    }),
    imageUrlAllow: parseImageUrlAllow(value.FLEET_IMAGE_URL_ALLOW),
    otel: parseOtelSettings(env),
  });
}

let cached: FleetConfig | undefined;
/** The settings read from SSM (./ssm-settings), once they are; the read under way before that. */
let fromSsm: Readonly<Record<string, string>> | undefined;
let readingSsm: Promise<void> | undefined;

/**
 * Resolves once the settings kept in SSM are read, so `getConfig` can build the config; undefined when
 * there is nothing to wait for (none configured, as in the emulator and the tests, or already read).
 * A failed read is tried again by the next caller.
 */
export function configReady(): Promise<void> | undefined {
  if (cached !== undefined || fromSsm !== undefined) return undefined;
  if (readingSsm !== undefined) return readingSsm;
  if (ssmParameterNames(process.env).size === 0) return undefined;
  readingSsm = readSsmSettings(process.env).then(
    (settings) => {
      fromSsm = settings;
    },
    (error: unknown) => {
      readingSsm = undefined;
      throw error;
    },
  );
  return readingSsm;
}

/**
 * The process's config, read from `process.env` on first use (a Lambda cold start), with the settings
 * from SSM when the environment names any: those must be read first (`configReady`), and a config built
 * without them — client routes open — is never built instead.
 */
export function getConfig(): FleetConfig {
  if (cached !== undefined) return cached;
  if (fromSsm === undefined && ssmParameterNames(process.env).size > 0) {
    throw new Error('the settings kept in SSM are not read yet: await configReady() before getConfig()');
  }
  cached = loadConfig(fromSsm === undefined ? process.env : { ...process.env, ...fromSsm });
  return cached;
}
