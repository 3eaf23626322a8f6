/**
 * The local emulator's HTTP front: node:http on one port serving every function listed in serverless.yml
 * the way API Gateway and Lambda would. It maps a request to its route, builds the payload 1.0 event,
 * invokes the handler (streaming handlers get a `LambdaResponseStream`; buffered ones return a result),
 * and writes the reply. It adapts; it decides nothing — routing, translation and storage are lib/'s.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Context } from 'aws-lambda';
import { MethodNotAllowedError, NotFoundError, PayloadTooLargeError, RouterError } from '../lib/core/errors';
import { familyForPath } from '../lib/services/http/family';
import { renderError } from '../lib/services/http/render-error';
import { MAX_BODY_BYTES } from '../lib/services/http/request';
import { normalizePath } from '../lib/services/http/route-pattern';
import { TurnGate } from '../lib/services/platform/end-of-turn';
import { createDeadlines, type Deadlines } from './deadlines';
import { lowerHelperThreadPriority } from './helper-thread-priority';
import { binaryMediaTypeMatcher, buildLambdaEvent } from './lambda-event';
import { installAwsLambdaGlobal, isStreamingHandler, LambdaResponseStream } from './lambda-runtime';
import type { EmulatorFunction, EmulatorRoute, EmulatorRouteTable } from './routes';

export type LoadHandler = (fn: EmulatorFunction) => unknown;

export interface EmulatorServerOptions {
  readonly table: EmulatorRouteTable;
  readonly loadHandler: LoadHandler;
  readonly stage?: string;
  readonly log?: (line: string) => void;
  /** How long a request's body may take to arrive, from its headers on (tests shorten it). */
  readonly bodyTimeoutMs?: number;
}

/**
 * A request body must arrive within this long once its headers did: one cut short on a connection left
 * open is answered 408 and closed, not held for Node's 300 s `requestTimeout`. A 6 MB upload needs
 * under 1 Mbit/s to make it.
 */
export const REQUEST_BODY_TIMEOUT_MS = 60_000;

interface BufferedResult {
  statusCode?: number;
  headers?: Record<string, string | number | boolean>;
  multiValueHeaders?: Record<string, (string | number | boolean)[]>;
  body?: string;
  isBase64Encoded?: boolean;
}

type StreamingFn = (event: unknown, stream: LambdaResponseStream, context: Context) => Promise<unknown>;
type BufferedFn = (event: unknown, context: Context) => Promise<BufferedResult | undefined>;

type FoundRoute = { route: EmulatorRoute; params: Record<string, string> };

function findRoute(
  routes: readonly EmulatorRoute[],
  exact: ReadonlyMap<string, EmulatorRoute>,
  method: string,
  path: string,
): FoundRoute | 'method' | undefined {
  const direct = exact.get(`${method} ${path}`);
  if (direct !== undefined) return { route: direct, params: {} };
  // As API Gateway: the most specific path template that matches is the resource, and the method must be
  // one of that resource's; a less specific template (`/{proxy+}`) never takes a method it lacks.
  let resource: string | undefined;
  let head: FoundRoute | undefined;
  for (const route of routes) {
    if (resource !== undefined && route.pattern.template !== resource) continue;
    const params = route.pattern.match(path);
    if (params === undefined) continue;
    resource = route.pattern.template;
    if (route.method === method || route.method === 'ANY') return { route, params };
    if (method === 'HEAD' && route.method === 'GET') head ??= { route, params };
  }
  if (head !== undefined) return head;
  return resource !== undefined ? 'method' : undefined;
}

function sendError(response: ServerResponse, path: string, error: RouterError, close = false): void {
  const rendered = renderError(familyForPath(path), error);
  const headers: Record<string, string> = {
    ...rendered.headers,
    'content-length': String(Buffer.byteLength(rendered.body)),
  };
  if (close) headers['connection'] = 'close';
  response.writeHead(rendered.statusCode, headers);
  response.end(rendered.body);
}

const NO_BODY = Buffer.alloc(0);

/** HTTP/1.1 framing: a request has a body only with a Content-Length above 0 or a Transfer-Encoding. */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Bytes of an over-limit body read and thrown away after the 413; a client sending more is cut off. */
const MAX_DISCARD_BYTES = 64 * 1024 * 1024;

/**
 * The 413 for a body over the limit (ARCHITECTURE.md §9.8), sent whole at once, with the connection closed only
 * once the client has finished sending — up to `MAX_DISCARD_BYTES`, read and thrown away. Closing while
 * the client still sends resets the connection, and the client would see EPIPE/ECONNRESET instead of
 * its 413 (issue 19 item 7: about one upload in five).
 */
function refuseOverLimit(request: IncomingMessage, response: ServerResponse, path: string): void {
  const error = new PayloadTooLargeError(`request body is larger than the ${MAX_BODY_BYTES / 1048576} MB limit`);
  const rendered = renderError(familyForPath(path), error);
  response.writeHead(rendered.statusCode, {
    ...rendered.headers,
    'content-length': String(Buffer.byteLength(rendered.body)),
    connection: 'close',
  });
  response.write(rendered.body);
  let discarded = 0;
  const finish = () => {
    if (!response.writableEnded) response.end();
  };
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > MAX_DISCARD_BYTES) finish();
  });
  request.once('end', finish);
  request.once('close', finish);
  request.resume();
}

/** When a body stops short of the deadline: what the client is told, if its socket still listens. */
function bodyTimedOut(request: IncomingMessage, response: ServerResponse, path: string, timeoutMs: number): void {
  const seconds = Math.round(timeoutMs / 100) / 10;
  const error = new RouterError(408, `request body not received within ${seconds} s`, {
    code: 'request_timeout',
    retryable: false,
  });
  if (!response.headersSent && response.writable) sendError(response, path, error, true);
  else request.destroy();
}

/** Reads the body up to the Lambda limit and its deadline; resolves undefined (after answering 413 or 408) otherwise. */
function readBody(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  deadline: { readonly deadlines: Deadlines; readonly timeoutMs: number },
): Promise<Buffer | undefined> {
  if (!hasBody(request)) return Promise.resolve(NO_BODY);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = Number(request.headers['content-length'] ?? '0');
    let stopClock = (): void => undefined;
    const tooLarge = () => {
      stopClock();
      refuseOverLimit(request, response, path);
      resolve(undefined);
    };
    if (declared > MAX_BODY_BYTES) {
      tooLarge();
      return;
    }
    stopClock = deadline.deadlines.add(Date.now() + deadline.timeoutMs, () => {
      size = Number.POSITIVE_INFINITY;
      bodyTimedOut(request, response, path, deadline.timeoutMs);
      resolve(undefined);
    });
    request.on('data', (chunk: Buffer) => {
      if (size > MAX_BODY_BYTES) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge();
      else chunks.push(chunk);
    });
    request.on('end', () => {
      stopClock();
      if (size <= MAX_BODY_BYTES) resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    request.on('error', (error) => {
      stopClock();
      reject(error);
    });
  });
}

/**
 * The invocation context a handler receives; a class, so a request costs one small object, and the
 * names derived from the function's are built when a handler reads them, not for every request.
 */
class EmulatorContext implements Context {
  callbackWaitsForEmptyEventLoop = false;
  readonly functionVersion = '$LATEST';
  readonly memoryLimitInMB = '1024';
  readonly logStreamName = 'emulator';
  readonly awsRequestId: string;
  private readonly fn: EmulatorFunction;
  private readonly deadline: number;

  constructor(fn: EmulatorFunction, requestId: string) {
    this.fn = fn;
    this.awsRequestId = requestId;
    this.deadline = Date.now() + fn.timeoutSeconds * 1000;
  }

  get functionName(): string {
    return this.fn.name;
  }

  get invokedFunctionArn(): string {
    return `arn:aws:lambda:local:000000000000:function:${this.fn.name}`;
  }

  get logGroupName(): string {
    return `/aws/lambda/${this.fn.name}`;
  }

  getRemainingTimeInMillis(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  done(): void {}
  fail(): void {}
  succeed(): void {}
}

function writeBufferedResult(response: ServerResponse, result: BufferedResult | undefined): void {
  // Already answered (the invocation timed out, or the client left): the result goes nowhere, as in AWS.
  if (response.headersSent || response.destroyed) return;
  const value = result ?? {};
  const body =
    value.body === undefined
      ? Buffer.alloc(0)
      : Buffer.from(value.body, value.isBase64Encoded === true ? 'base64' : 'utf8');
  const headers: Record<string, string | string[]> = {};
  for (const [name, raw] of Object.entries(value.headers ?? {})) headers[name.toLowerCase()] = String(raw);
  for (const [name, raw] of Object.entries(value.multiValueHeaders ?? {}))
    headers[name.toLowerCase()] = raw.map(String);
  headers['content-length'] = String(body.length);
  response.writeHead(value.statusCode ?? 200, headers);
  response.end(body);
}

/** What API Gateway answers when the integration fails before a byte was sent. */
function integrationFailure(response: ServerResponse, status: 502 | 504, message: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify({ message });
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  response.end(body);
}

export function createEmulatorServer(options: EmulatorServerOptions): Server {
  installAwsLambdaGlobal();
  // This server's event loop runs every function: V8's compiler and collector threads yield the core to it.
  lowerHelperThreadPriority();
  const stage = options.stage ?? 'local';
  const log = options.log ?? ((line: string) => console.error(line));
  const handlers = new Map<string, unknown>();
  const deadlines = createDeadlines();
  const bodyDeadline = { deadlines, timeoutMs: options.bodyTimeoutMs ?? REQUEST_BODY_TIMEOUT_MS };
  const isBinary = binaryMediaTypeMatcher(options.table.binaryMediaTypes);
  // Templates without parameters are looked up directly; only the rest are matched in order.
  const exactRoutes = new Map(
    options.table.routes
      .filter((route) => !route.pattern.template.includes('{'))
      .map((route) => [`${route.method} ${route.pattern.template}`, route] as const),
  );
  // Invocations in flight: with more than one, handlers start and whole replies go out at the end of
  // their turn of the loop, together (lib/services/platform/end-of-turn).
  let invocations = 0;
  const inCompany = () => invocations > 1;
  const handlerTurn = new TurnGate();
  const handlerFor = (fn: EmulatorFunction) => {
    let handler = handlers.get(fn.name);
    if (handler === undefined) {
      handler = options.loadHandler(fn);
      handlers.set(fn.name, handler);
    }
    return handler;
  };

  const invoke = async (request: IncomingMessage, response: ServerResponse) => {
    const target = request.url ?? '/';
    const question = target.indexOf('?');
    // Normalised once, as the handler does: `//api/chat` and `/api/chat/` are `/api/chat`, in its family.
    const path = normalizePath(question === -1 ? target : target.slice(0, question));
    const search = question === -1 ? undefined : new URLSearchParams(target.slice(question + 1));
    const method = (request.method ?? 'GET').toUpperCase();
    const found = findRoute(options.table.routes, exactRoutes, method, path);
    if (found === undefined || found === 'method') {
      request.resume();
      const error =
        found === undefined
          ? new NotFoundError(`no route for ${method} ${path}`)
          : new MethodNotAllowedError(`${method} is not allowed on ${path}`);
      sendError(response, path, error);
      return;
    }
    const body = await readBody(request, response, path, bodyDeadline);
    if (body === undefined) return;
    invocations += 1;
    let done: (() => void) | undefined;
    try {
      // In company, a handler starts at the end of the turn its request arrived in, with the turn's others
      // (lib/services/platform/end-of-turn); a lone request starts at once.
      if (invocations > 1) await handlerTurn.next();
      const event = buildLambdaEvent({
        request,
        body,
        path,
        search,
        resource: found.route.pattern.template,
        pathParameters: found.params,
        isBinary,
        stage,
      });
      const fn = found.route.function;
      const context = new EmulatorContext(fn, event.requestContext.requestId);
      const handler = handlerFor(fn);
      done = deadlines.add(Date.now() + fn.timeoutSeconds * 1000, () => {
        log(`${fn.name}: Task timed out after ${fn.timeoutSeconds} seconds`);
        integrationFailure(response, 504, 'Endpoint request timed out');
      });
      if (isStreamingHandler(handler)) {
        const stream = new LambdaResponseStream(response, inCompany);
        stream.on('error', () => undefined);
        await (handler as StreamingFn)(event, stream, context);
        if (!stream.writableFinished && !stream.destroyed) {
          log(`${fn.name}: Response stream is not finished`);
          integrationFailure(response, 502, 'Internal server error');
        }
      } else {
        writeBufferedResult(response, await (handler as BufferedFn)(event, context));
      }
    } finally {
      done?.();
      invocations -= 1;
    }
  };

  // Node's own request deadline is a backstop behind the body's (it answers a bare 408, no family shape).
  const requestTimeout = bodyDeadline.timeoutMs + 5_000;
  const headersTimeout = Math.min(60_000, requestTimeout);
  return createServer({ keepAliveTimeout: 65_000, requestTimeout, headersTimeout }, (request, response) => {
    invoke(request, response).catch((error: unknown) => {
      if (!request.complete && request.destroyed) {
        // The client cut its upload short: its own doing, one warning and no stack (issue 19 item 8).
        const path = normalizePath((request.url ?? '/').split('?')[0] ?? '/');
        log(JSON.stringify({ level: 'warn', msg: 'client left before its request body arrived', path }));
        response.destroy();
        return;
      }
      log(`emulator: handler failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      integrationFailure(response, 502, 'Internal server error');
    });
  });
}
