/**
 * The one wrapper every Lambda handler goes through (ARCHITECTURE.md §3.1). It picks the host at module
 * load — streaming where `awslambda.streamifyResponse` exists (AWS and the emulator), buffered under
 * serverless-offline (`IS_OFFLINE`) and in unit tests — reads the event into an `HttpRequest`, finds the
 * route, and renders any failure in the family's error shape. Routes never touch `awslambda`.
 */

import type { Writable } from 'node:stream';
import type { Context } from 'aws-lambda';
import { MethodNotAllowedError, NotFoundError, type RouterError, toRouterError } from '../../core/errors';
import { configReady } from '../platform/config';
import { causeText, logger } from '../platform/logger';
import {
  type CredentialCheck,
  createCredentialCheck,
  credentialWarnings,
  type RouteCredential,
  unsaidWarnings,
} from './api-keys';
import { type CorsPolicy, corsSink, createCorsPolicy, preflightHeaders } from './cors';
import { familyForPath } from './family';
import { logRequestEnd } from './log-request';
import { renderError } from './render-error';
import { admitCaller, type HttpRequest, type LambdaHttpEvent, routingKeyOf, toHttpRequest } from './request';
import {
  type BufferedResult,
  createBufferedSink,
  createStreamingSink,
  type PreludeWriter,
  type ResponseMeta,
  type ResponseSink,
} from './response-sink';
import { compileRoutePattern, type RoutePattern, sortBySpecificity } from './route-pattern';

export type Route = (request: HttpRequest, response: ResponseSink) => Promise<void>;

/** A route that takes a credential other than the clients' keys (`operatorRoute`, `nodeRoute`, `publicRoute`). */
export interface GuardedRoute {
  readonly route: Route;
  readonly credential: RouteCredential;
}

/**
 * Keys are `METHOD /template`, exactly as serverless.yml lists the http events. A plain route takes
 * client keys; a route that changes the fleet is marked with `operatorRoute`, node agents' routes with
 * `nodeRoute`.
 */
export type RouteTable = Readonly<Record<string, Route | GuardedRoute>>;

/**
 * The table, or a function that builds it on the first request: a handler's routes are built from the
 * instance's services (`routes(getServices())` in functions/), which a module load must not build.
 */
export type RouteTableSource = RouteTable | (() => RouteTable);

/**
 * Marks a route as a change to the fleet (issue 46: pulls, deletes, copies, settings, benchmarks): it takes
 * operator keys only once client or operator keys are set; a client key gets 403 (./api-keys).
 */
export function operatorRoute(route: Route): GuardedRoute {
  return { route, credential: 'operator' };
}

/** Marks a route as node agents' (heartbeats): it takes node keys only, never client keys. */
export function nodeRoute(route: Route): GuardedRoute {
  return { route, credential: 'node' };
}

/** Marks a route as open to anyone who reaches the API (the dashboard page and its assets: no fleet data). */
export function publicRoute(route: Route): GuardedRoute {
  return { route, credential: 'public' };
}

export interface HandlerOptions {
  /** Runs after the reply ended, inside the invocation (flushes written-behind items in AWS). */
  readonly afterResponse?: () => Promise<void>;
  /** Accepted client keys; unset or empty = client routes open (ARCHITECTURE.md §3.10). */
  readonly apiKeys?: readonly string[] | undefined;
  /** Operator keys: client routes and `operatorRoute`s (ARCHITECTURE.md §3.10; see api-keys). */
  readonly adminKeys?: readonly string[] | undefined;
  /** Accepted node keys, for `nodeRoute`s only (ARCHITECTURE.md §3.10, §8.2; see api-keys). */
  readonly nodeKeys?: readonly string[] | undefined;
  /** Origins browsers may call from (FLEET_CORS_ORIGINS, spec §4.8); unset or empty = no CORS handling. */
  readonly corsOrigins?: readonly string[] | undefined;
}

interface AwsLambdaGlobal {
  streamifyResponse(
    handler: (event: LambdaHttpEvent, stream: Writable, context: Context) => Promise<void>,
  ): (event: LambdaHttpEvent, stream: Writable, context: Context) => Promise<void>;
  HttpResponseStream: { from(stream: Writable, prelude: ResponseMeta): Writable };
}

export type StreamingLambdaHandler = (event: LambdaHttpEvent, stream: Writable, context: Context) => Promise<void>;
export type BufferedLambdaHandler = (event: LambdaHttpEvent, context?: Context) => Promise<BufferedResult>;

interface CompiledRoute {
  readonly method: string;
  readonly pattern: RoutePattern;
  readonly route: GuardedRoute;
}

interface CompiledTable {
  /** `METHOD /template` → route, for the exact lookups that serve almost every request. */
  readonly exact: ReadonlyMap<string, GuardedRoute>;
  /** Every route, most specific first, for matching paths against templates. */
  readonly ordered: readonly CompiledRoute[];
  /** Some route takes node keys (the fleet function's heartbeats). */
  readonly hasNodeRoutes: boolean;
  /** Some route changes the fleet (ollama's pulls and deletes, the dashboard's writes). */
  readonly hasOperatorRoutes: boolean;
}

function guarded(entry: Route | GuardedRoute): GuardedRoute {
  return typeof entry === 'function' ? { route: entry, credential: 'client' } : entry;
}

function compileRoutes(routes: RouteTable): CompiledTable {
  const ordered = sortBySpecificity(
    Object.entries(routes).map(([key, route]) => {
      const [method, template] = key.trim().split(/\s+/);
      if (method === undefined || template === undefined) throw new Error(`route key "${key}" is not "METHOD /path"`);
      return { method: method.toUpperCase(), pattern: compileRoutePattern(template), route: guarded(route) };
    }),
  );
  const exact = new Map(ordered.map((entry) => [`${entry.method} ${entry.pattern.template}`, entry.route]));
  const hasNodeRoutes = ordered.some((entry) => entry.route.credential === 'node');
  const hasOperatorRoutes = ordered.some((entry) => entry.route.credential === 'operator');
  return { exact, ordered, hasNodeRoutes, hasOperatorRoutes };
}

interface FoundRoute {
  readonly route: GuardedRoute;
  readonly params: Record<string, string> | undefined;
}

/** The route for a request: by the template API Gateway matched, else by matching the path. */
function findRoute(table: CompiledTable, method: string, path: string, resource: string | undefined): FoundRoute {
  const byResource = resource === undefined ? undefined : table.exact.get(`${method} ${resource}`);
  if (byResource !== undefined && !resource?.includes('{')) return { route: byResource, params: undefined };
  const byPath = table.exact.get(`${method} ${path}`);
  if (byPath !== undefined) return { route: byPath, params: undefined };
  let pathMatched = false;
  let fallback: FoundRoute | undefined;
  for (const entry of table.ordered) {
    const params = entry.pattern.match(path);
    if (params === undefined) continue;
    pathMatched = true;
    if (entry.method === method || entry.method === 'ANY') return { route: entry.route, params };
    if (method === 'HEAD' && entry.method === 'GET') fallback ??= { route: entry.route, params };
  }
  if (fallback !== undefined) return fallback;
  if (!pathMatched) throw new NotFoundError(`no route for ${method} ${path}`);
  throw new MethodNotAllowedError(`${method} is not allowed on ${path}`);
}

/** What a preflight is told: the methods the path's routes take (HEAD wherever GET), else the table's. */
function methodsAt(table: CompiledTable, path: string): string[] {
  const matching = table.ordered.filter((entry) => entry.pattern.match(path) !== undefined);
  const methods = new Set((matching.length > 0 ? matching : table.ordered).map((entry) => entry.method));
  if (methods.delete('ANY')) for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) methods.add(method);
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

async function fail(sink: ResponseSink, path: string, error: RouterError): Promise<void> {
  if (sink.ended) return;
  if (sink.started) {
    // Headers are gone: the route's relay reports in band; here the stream can only be closed.
    await sink.end();
    return;
  }
  const rendered = renderError(familyForPath(path), error);
  sink.start({ statusCode: rendered.statusCode, headers: rendered.headers });
  await sink.end(rendered.body);
}

/**
 * Options, or a function that gives them on the first request: reading settings (zod-validated) at
 * module load would be part of every cold start, also for the invocations that never need them.
 */
export type HandlerOptionsSource = HandlerOptions | (() => HandlerOptions);

interface ServeSetup {
  readonly table: CompiledTable;
  readonly options: HandlerOptions;
  readonly checkCredential: CredentialCheck | undefined;
  readonly cors: CorsPolicy | undefined;
}

/**
 * Read once per container (a cold start): the operator hears about a setup that shuts node agents out
 * (from the function with heartbeats) or refuses every change (from the functions with changes), once
 * per process — the emulator's functions share one, and it has said so at start.
 */
function warnAboutCredentials(options: HandlerOptions, table: CompiledTable): void {
  const relevant = credentialWarnings(options).filter((warning) =>
    warning.concerns === 'heartbeats' ? table.hasNodeRoutes : table.hasOperatorRoutes,
  );
  for (const { message } of unsaidWarnings(relevant)) console.error(JSON.stringify({ level: 'warn', message }));
}

/** Built once per container, on the first request: the routes first, then the options (same config). */
function setUp(routes: RouteTableSource, source: HandlerOptionsSource): ServeSetup {
  const table = compileRoutes(typeof routes === 'function' ? routes() : routes);
  const options = typeof source === 'function' ? source() : source;
  warnAboutCredentials(options, table);
  return {
    table,
    options,
    checkCredential: createCredentialCheck(options),
    cors: createCorsPolicy(options.corsOrigins),
  };
}

function createServe(routes: RouteTableSource, source: HandlerOptionsSource) {
  let setup: ServeSetup | undefined;
  const resolve = (): ServeSetup => {
    setup ??= setUp(routes, source);
    return setup;
  };
  return async (event: LambdaHttpEvent, sink: ResponseSink): Promise<void> => {
    const { method, path, resource } = routingKeyOf(event);
    let options: HandlerOptions | undefined;
    let error: RouterError | undefined;
    let requestId: string | undefined;
    let out = sink;
    try {
      // The settings kept in SSM, read once per container before anything builds the config (AWS only).
      if (setup === undefined) await configReady();
      const current = resolve();
      options = current.options;
      // CORS (cors.ts): preflights are answered before any key check, and every reply carries its headers.
      if (current.cors !== undefined && method === 'OPTIONS') {
        sink.start({ statusCode: 204, headers: preflightHeaders(current.cors, event, methodsAt(current.table, path)) });
      } else {
        if (current.cors !== undefined) out = corsSink(current.cors, event, sink);
        const found = findRoute(current.table, method, path, resource);
        const request = toHttpRequest(event, found.params);
        requestId = request.requestId;
        if (current.checkCredential !== undefined)
          admitCaller(request, current.checkCredential(request, found.route.credential));
        await found.route.route(request, out);
      }
      if (!out.ended) await out.end();
    } catch (thrown) {
      error = toRouterError(thrown);
      await fail(out, path, error);
    }
    // One line for a request that failed, whichever way it failed (thrown, in band, the client gone).
    // A request that went well logs nothing and builds nothing here (the hot path).
    if (error !== undefined) logRequestEnd({ path, requestId, error });
    else if (sink.failure !== undefined) logRequestEnd({ path, requestId, failure: sink.failure });
    if (options?.afterResponse !== undefined) {
      await options.afterResponse().catch((flushError: unknown) =>
        // The table is down for every request alike: one line per 10 s says so, not one per request.
        logger().limited('after-response flush', 'warn', 'writing to the table after the reply failed', {
          path,
          cause: causeText(flushError),
        }),
      );
    }
  };
}

function isAwsLambdaGlobal(candidate: unknown): candidate is AwsLambdaGlobal {
  if (typeof candidate !== 'object' || candidate === null) return false;
  const value = candidate as Partial<Record<keyof AwsLambdaGlobal, unknown>>;
  const stream = value.HttpResponseStream;
  return (
    typeof value.streamifyResponse === 'function' &&
    (typeof stream === 'object' || typeof stream === 'function') &&
    stream !== null
  );
}

function awsLambdaGlobal(): AwsLambdaGlobal | undefined {
  const candidate: unknown = Reflect.get(globalThis, 'awslambda');
  return isAwsLambdaGlobal(candidate) ? candidate : undefined;
}

/** A streaming handler where the platform streams, else a buffered one. */
export function createHandler(
  routes: RouteTableSource,
  options: HandlerOptionsSource = {},
): StreamingLambdaHandler | BufferedLambdaHandler {
  const serve = createServe(routes, options);
  // Started while the function initialises, so the first request seldom waits for it; a failure here is
  // the first request's to report (it tries again).
  configReady()?.catch(() => {});
  const aws = awsLambdaGlobal();
  if (aws !== undefined && process.env['IS_OFFLINE'] !== 'true') {
    return aws.streamifyResponse(async (event, stream) => {
      await serve(
        event,
        createStreamingSink(stream, (raw, meta) => aws.HttpResponseStream.from(raw, meta)),
      );
    });
  }
  return createBufferedHandler(routes, options);
}

/** The buffered host on its own (serverless-offline, unit tests). */
export function createBufferedHandler(
  routes: RouteTableSource,
  options: HandlerOptionsSource = {},
): BufferedLambdaHandler {
  const serve = createServe(routes, options);
  return async (event) => {
    const { sink, result } = createBufferedSink();
    await serve(event, sink);
    return result();
  };
}

/**
 * The streaming host on its own, over any Writable (tests drive it with a recording stream and the
 * runtime's prelude writer, so status and headers are checked as AWS frames them).
 */
export function createStreamingHandler(
  routes: RouteTableSource,
  options: HandlerOptionsSource = {},
  withPrelude?: PreludeWriter,
) {
  const serve = createServe(routes, options);
  return async (event: LambdaHttpEvent, stream: Writable): Promise<void> => {
    await serve(event, createStreamingSink(stream, withPrelude));
  };
}
