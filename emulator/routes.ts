/**
 * Reads the route table from serverless.yml — the only place routes are listed — so the emulator serves
 * exactly what AWS would: each `http` event (string `METHOD /path` or `{method, path}`) becomes a route to
 * its function's handler, each path also takes `OPTIONS` there (CORS preflights, as
 * serverless/preflight-routes.js adds them in AWS), and each `schedule` event marks a function the
 * emulator runs on a timer.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { compileRoutePattern, type RoutePattern, sortBySpecificity } from '../lib/services/http/route-pattern';

export interface EmulatorFunction {
  readonly name: string;
  /** Absolute path of the bundle file, e.g. `/…/dist/functions/ollama/index.js`. */
  readonly file: string;
  /** The exported handler's name, e.g. `handler`. */
  readonly exportName: string;
  readonly timeoutSeconds: number;
  readonly scheduled: boolean;
}

export interface EmulatorRoute {
  readonly method: string;
  readonly pattern: RoutePattern;
  readonly function: EmulatorFunction;
}

export interface EmulatorRouteTable {
  readonly routes: readonly EmulatorRoute[];
  readonly functions: readonly EmulatorFunction[];
  /** Content types API Gateway passes base64-encoded (`provider.apiGateway.binaryMediaTypes`). */
  readonly binaryMediaTypes: readonly string[];
}

interface ServerlessHttpEvent {
  method?: string;
  path?: string;
}

interface ServerlessFunction {
  handler?: string;
  timeout?: number;
  events?: ({ http?: string | ServerlessHttpEvent; schedule?: unknown } | undefined)[];
}

interface ServerlessFile {
  provider?: { timeout?: number; apiGateway?: { binaryMediaTypes?: string[] } };
  functions?: Record<string, ServerlessFunction>;
}

function httpEventParts(event: string | ServerlessHttpEvent): { method: string; path: string } {
  if (typeof event === 'string') {
    const [method, path] = event.trim().split(/\s+/);
    if (method === undefined || path === undefined) throw new Error(`serverless.yml: bad http event "${event}"`);
    return { method, path };
  }
  if (event.method === undefined || event.path === undefined)
    throw new Error('serverless.yml: http event needs method and path');
  return { method: event.method, path: event.path };
}

function toFunction(root: string, name: string, definition: ServerlessFunction, defaultTimeout: number) {
  const handler = definition.handler;
  if (handler === undefined) throw new Error(`serverless.yml: function ${name} has no handler`);
  const dot = handler.lastIndexOf('.');
  return {
    name,
    file: resolve(root, `${handler.slice(0, dot)}.js`),
    exportName: handler.slice(dot + 1),
    timeoutSeconds: definition.timeout ?? defaultTimeout,
    scheduled: (definition.events ?? []).some((event) => event?.schedule !== undefined),
  };
}

/**
 * `OPTIONS` on each of a function's paths that takes neither it nor `ANY`, to that function: the CORS
 * preflights, exactly as serverless/preflight-routes.js adds them to the deployment.
 */
function preflightRoutes(own: readonly EmulatorRoute[]): EmulatorRoute[] {
  const covered = new Set(
    own.filter((r) => r.method === 'OPTIONS' || r.method === 'ANY').map((r) => r.pattern.template),
  );
  const added = new Map<string, EmulatorRoute>();
  for (const route of own) {
    const template = route.pattern.template;
    if (!covered.has(template) && !added.has(template)) added.set(template, { ...route, method: 'OPTIONS' });
  }
  return [...added.values()];
}

/** Parses serverless.yml; CloudFormation tags (`!Ref`, `!GetAtt`) are left unresolved, as they are unused here. */
export function readRouteTable(serverlessYmlPath: string): EmulatorRouteTable {
  const root = dirname(serverlessYmlPath);
  const file = parse(readFileSync(serverlessYmlPath, 'utf8'), { logLevel: 'silent' }) as ServerlessFile;
  const defaultTimeout = file.provider?.timeout ?? 6;
  const functions: EmulatorFunction[] = [];
  const routes: EmulatorRoute[] = [];
  for (const [name, definition] of Object.entries(file.functions ?? {})) {
    const fn = toFunction(root, name, definition, defaultTimeout);
    functions.push(fn);
    const own: EmulatorRoute[] = [];
    for (const event of definition.events ?? []) {
      if (event?.http === undefined) continue;
      const { method, path } = httpEventParts(event.http);
      own.push({ method: method.toUpperCase(), pattern: compileRoutePattern(path), function: fn });
    }
    routes.push(...own, ...preflightRoutes(own));
  }
  const binaryMediaTypes = file.provider?.apiGateway?.binaryMediaTypes ?? [];
  return { routes: sortBySpecificity(routes), functions, binaryMediaTypes };
}
