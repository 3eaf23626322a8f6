/**
 * A simulated Ollama server (`startSimNode`): the route table of the real API (protocols §2) over a
 * model runtime, with fault knobs and a bounded log of the requests it received. Listed nodes in
 * FLEET_NODES and node agents' runtimes are both this.
 *
 * Without `performance` a chat or generate answer has fixed timing (`ttftMs`, `tokensPerSecond`,
 * `loadMs`). With it, a node scheduler decides (docs/simulated-node.md): rates from the hardware class
 * and the model's size, parallel slots sharing the GPU, FIFO waiting, memory-bound loads and evictions,
 * and a prompt cache per slot.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { CATALOG, type CatalogModel, hasCapability } from './catalog';
import { hostOffsetMinutes } from './clock';
import type { SimFaults } from './faults';
import { parseJson, sendError, sendJson, sendText } from './http';
import { type SimTiming, serveCompletion } from './ollama-completion';
import { serveEmbed, serveLegacyEmbeddings } from './ollama-embed';
import { modelNameOf, serveCopy, serveDelete, servePull } from './ollama-pull';
import { type Endpoint, isRequestError, parseCompletion } from './ollama-request';
import { loadedSize, psEntry, showResponse, tagsEntry } from './ollama-shapes';
import { performanceModel, type SimPerformance, type SimPerformanceModel } from './performance/model';
import { createNodeRuntime, createNodeScheduler, whenNodeIdle } from './performance/node-setup';
import type { NodeScheduler } from './performance/scheduler';
import { servePerformanceCompletion } from './performance/serve-completion';
import type { SimPerformanceStats } from './performance/stats';
import { catalogModifiedAt, type HotModel, type ModelRuntime } from './runtime';
import { type SimRequest, type SimServer, startSimServer } from './sim-server';

export interface SimNodeOptions {
  readonly id?: string;
  /** 0 (default) = an ephemeral port. */
  readonly port?: number;
  readonly host?: string;
  /** Models on disk (default: a small realistic set). */
  readonly models?: readonly CatalogModel[];
  /** Names of models hot at start. */
  readonly loaded?: readonly string[];
  /** Time to first token, ms (default 50). */
  readonly ttftMs?: number;
  /** Default 40; `Infinity` = no delay between tokens. */
  readonly tokensPerSecond?: number;
  /** Extra time to load a model that is not hot, ms (default 0). */
  readonly loadMs?: number;
  /** OLLAMA_NUM_PARALLEL; Ollama reports it nowhere, node agents do (default 1). */
  readonly numParallel?: number;
  /** OLLAMA_MAX_LOADED_MODELS (default 3): loading one more evicts the least recently used. */
  readonly maxLoadedModels?: number;
  /** Default keep_alive, ms (default 5 minutes). */
  readonly keepAliveMs?: number;
  /** `/api/version` (default 0.12.6). */
  readonly version?: string;
  /** Offset of the node's local time for `modified_at` / `expires_at` (default: the host's). */
  readonly utcOffsetMinutes?: number;
  /** Delay between `/api/pull` progress lines, ms (default 10). */
  readonly pullStepMs?: number;
  /**
   * A performance model for chat and generate (text models): the timing options above then apply to
   * embeddings and image generation only. See docs/simulated-node.md.
   */
  readonly performance?: SimPerformance;
}

export interface SimRequestRecord {
  readonly method: string;
  readonly path: string;
  /** Parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
  readonly at: number;
}

export interface SimLoadedModel {
  readonly name: string;
  /** Bytes, weights plus KV cache (as `/api/ps` reports). */
  readonly size: number;
  readonly parameterSize: string;
  readonly quantization: string;
  readonly contextLength: number;
  readonly requestsActive: number;
}

/** What the node holds now, read in-process (what a node agent reads from `/api/ps` and `/api/tags`). */
export interface SimNodeSnapshot {
  readonly models: readonly CatalogModel[];
  readonly loaded: readonly SimLoadedModel[];
  readonly requestsActive: number;
}

export interface SimNode {
  readonly id: string;
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly version: string;
  readonly numParallel: number;
  readonly maxLoadedModels: number;
  readonly faults: SimFaults;
  /** The last 200 requests (control routes excluded), oldest first. */
  readonly requests: readonly SimRequestRecord[];
  setLoaded(names: readonly string[]): void;
  load(name: string): void;
  unload(name: string): void;
  snapshot(): SimNodeSnapshot;
  /** Resolves once no request is in flight on the node (for tests that wait on the node, not a clock). */
  whenIdle(): Promise<void>;
  /** Calls `listener` with every request as it arrives (control routes excluded); returns the unsubscribe. */
  onRequest(listener: (request: SimRequestRecord) => void): () => void;
  /** Cumulative counters since start or `resetStats()`; undefined without `performance`. */
  performanceStats(): SimPerformanceStats | undefined;
  resetStats(): void;
  /** The resolved hardware and per-model rates; undefined without `performance`. */
  performanceModel(): SimPerformanceModel | undefined;
  close(): Promise<void>;
}

const REQUEST_LOG_SIZE = 200;
const POLL_PATHS = new Set(['/', '/api/version', '/api/tags', '/api/ps']);

export const DEFAULT_NODE_MODELS: readonly string[] = ['llama3.2:3b', 'qwen3:8b', 'nomic-embed-text:latest'];

function defaultModels(): CatalogModel[] {
  return CATALOG.filter((entry) => DEFAULT_NODE_MODELS.includes(entry.name));
}

function bodyForLog(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  const parsed = parseJson(body);
  return parsed.ok ? parsed.value : body.toString('utf8');
}

/** A log entry whose body is parsed only when someone reads it (the hot path never does). */
function logEntry(request: SimRequest): SimRequestRecord {
  const { method, path, headers } = request;
  let body: { value: unknown } | undefined;
  return {
    method,
    path,
    headers,
    at: Date.now(),
    get body() {
      body ??= { value: bodyForLog(request.body) };
      return body.value;
    },
  };
}

interface NodeContext {
  readonly runtime: ModelRuntime;
  readonly server: () => SimServer;
  readonly timing: SimTiming;
  readonly version: string;
  readonly offset: number;
  readonly pullStepMs: number;
  /** The node scheduler, with `performance`. */
  readonly scheduler: () => NodeScheduler | undefined;
}

type Route = (ctx: NodeContext, request: SimRequest, res: ServerResponse) => void;

function withJson(serve: (ctx: NodeContext, value: unknown, res: ServerResponse) => void): Route {
  return (ctx, request, res) => {
    const parsed = parseJson(request.body);
    if (!parsed.ok) {
      sendError(res, 400, parsed.error);
      return;
    }
    serve(ctx, parsed.value, res);
  };
}

function completion(endpoint: Endpoint): Route {
  return withJson((ctx, value, res) => {
    const request = parseCompletion(endpoint, value, (name) => ctx.runtime.find(name));
    if (isRequestError(request)) {
      sendError(res, request.status, request.error);
      return;
    }
    const faults = ctx.server().faults;
    const scheduler = ctx.scheduler();
    const imageGeneration = endpoint === 'generate' && hasCapability(request.entry, 'image');
    if (scheduler !== undefined && !imageGeneration) {
      servePerformanceCompletion({ scheduler, runtime: ctx.runtime, faults }, request, res);
      return;
    }
    serveCompletion({ runtime: ctx.runtime, faults, timing: ctx.timing }, request, res);
  });
}

function show(ctx: NodeContext, value: unknown, res: ServerResponse): void {
  const name = modelNameOf(value);
  if (name === undefined) {
    sendError(res, 400, 'model is required');
    return;
  }
  const model = ctx.runtime.listDisk().find((disk) => disk.entry === ctx.runtime.find(name));
  if (model === undefined) {
    sendError(res, 404, `model '${name}' not found`);
    return;
  }
  sendJson(res, 200, showResponse(model, ctx.offset));
}

const ROUTES: Readonly<Record<string, Route>> = {
  'GET /': (_ctx, _request, res) => sendText(res, 200, 'Ollama is running'),
  'HEAD /': (_ctx, _request, res) => sendText(res, 200, 'Ollama is running', true),
  'GET /api/version': (ctx, _request, res) => sendJson(res, 200, { version: ctx.version }),
  'HEAD /api/version': (ctx, _request, res) => sendJson(res, 200, { version: ctx.version }, true),
  'GET /api/tags': (ctx, _request, res) =>
    sendJson(res, 200, { models: ctx.runtime.listDisk().map((model) => tagsEntry(model, ctx.offset)) }),
  'GET /api/ps': (ctx, _request, res) => {
    const now = Date.now();
    sendJson(res, 200, { models: ctx.runtime.listHot(now).map((hot) => psEntry(hot, ctx.offset, now)) });
  },
  'POST /api/show': withJson(show),
  'POST /api/chat': completion('chat'),
  'POST /api/generate': completion('generate'),
  'POST /api/embed': withJson((ctx, value, res) =>
    serveEmbed({ runtime: ctx.runtime, loadMs: ctx.timing.loadMs }, value, res),
  ),
  'POST /api/embeddings': withJson((ctx, value, res) =>
    serveLegacyEmbeddings({ runtime: ctx.runtime, loadMs: ctx.timing.loadMs }, value, res),
  ),
  'POST /api/pull': withJson((ctx, value, res) => {
    const faults = ctx.server().faults;
    servePull(
      { runtime: ctx.runtime, stepMs: ctx.pullStepMs, takeStreamFault: () => faults.takeStreamFault() },
      value,
      res,
    );
  }),
  'DELETE /api/delete': withJson((ctx, value, res) => serveDelete(ctx.runtime, value, res)),
  'POST /api/copy': withJson((ctx, value, res) => serveCopy(ctx.runtime, value, res)),
};

function snapshotOf(runtime: ModelRuntime, scheduler: NodeScheduler | undefined): SimNodeSnapshot {
  const loaded = runtime.listHot().map((hot: HotModel) => ({
    name: hot.entry.name,
    size: loadedSize(hot),
    parameterSize: hot.entry.parameterSize,
    quantization: hot.entry.quantization,
    contextLength: hot.contextLength,
    requestsActive: hot.requestsActive,
  }));
  // Requests waiting for room to load their model are on no hot model yet, but they are on the node.
  const requestsActive = runtime.requestsActive() + (scheduler?.unplaced() ?? 0);
  return { models: runtime.listDisk().map((disk) => disk.entry), loaded, requestsActive };
}

/** Starts a simulated Ollama server on 127.0.0.1 (by default) and resolves once it listens. */
export async function startSimNode(options: SimNodeOptions = {}): Promise<SimNode> {
  const models = options.models ?? defaultModels();
  const numParallel = options.numParallel ?? 1;
  const model =
    options.performance === undefined ? undefined : performanceModel(options.performance, models, numParallel);
  const keepAliveMs = options.keepAliveMs ?? 5 * 60_000;
  const runtime = createNodeRuntime({ keepAliveMs, maxLoadedModels: options.maxLoadedModels ?? 3 }, model);
  for (const entry of models) runtime.add(entry, catalogModifiedAt(entry.name));
  runtime.setLoaded(options.loaded ?? []);
  const requests: SimRequestRecord[] = [];
  const listeners = new Set<(request: SimRequestRecord) => void>();
  let server: SimServer | undefined;
  let scheduler: NodeScheduler | undefined;
  const ctx: NodeContext = {
    runtime,
    server: () => server as SimServer,
    scheduler: () => scheduler,
    timing: {
      ttftMs: options.ttftMs ?? 50,
      tokensPerSecond: options.tokensPerSecond ?? 40,
      loadMs: options.loadMs ?? 0,
    },
    version: options.version ?? '0.12.6',
    offset: options.utcOffsetMinutes ?? hostOffsetMinutes(),
    pullStepMs: options.pullStepMs ?? 10,
  };
  const record = (request: SimRequest): void => {
    const entry = logEntry(request);
    requests.push(entry);
    if (requests.length > REQUEST_LOG_SIZE) requests.shift();
    for (const listener of listeners) listener(entry);
  };
  server = await startSimServer({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    isWork: (_method, path) => !POLL_PATHS.has(path),
    record,
    state: () => ({ id, version: ctx.version, ...snapshotOf(runtime, scheduler) }),
    handle: (request, res) => {
      const route = ROUTES[`${request.method} ${request.path}`];
      if (route === undefined) {
        sendText(res, 404, '404 page not found');
        return;
      }
      route(ctx, request, res);
    },
  });
  const started = server;
  const id = options.id ?? `sim-${started.port}`;
  scheduler = model === undefined ? undefined : createNodeScheduler(runtime, model, id, keepAliveMs);
  return {
    id,
    host: started.host,
    get port() {
      return started.port;
    },
    get url() {
      return started.url;
    },
    version: ctx.version,
    numParallel,
    maxLoadedModels: options.maxLoadedModels ?? 3,
    faults: started.faults,
    requests,
    setLoaded: (names) => runtime.setLoaded(names),
    load: (name) => {
      runtime.load(name);
    },
    unload: (name) => runtime.unload(name),
    snapshot: () => snapshotOf(runtime, scheduler),
    whenIdle: () => whenNodeIdle(runtime, scheduler),
    onRequest: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    performanceStats: () => scheduler?.statsSnapshot(),
    resetStats: () => scheduler?.resetStats(),
    performanceModel: () => model,
    close: () => {
      scheduler?.close();
      return started.close();
    },
  };
}
