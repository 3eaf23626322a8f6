/**
 * One request view over the two event shapes a handler can receive (ARCHITECTURE.md §3.2): API Gateway
 * REST proxy events (payload 1.0, production and the emulator) and Function URL / HTTP API events
 * (payload 2.0). Paths never carry the query string, header names are lower-cased, bodies are bytes
 * (or, for a JSON route, the text the event carried, never turned into bytes and back).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { PayloadTooLargeError } from '../../core/errors';
import { type Caller, UNCHECKED } from './caller';
import { normalizePath } from './route-pattern';

/** The Lambda request payload limit: bigger bodies are refused with 413 (ARCHITECTURE.md §9.8). */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;

export type LambdaHttpEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2;

export interface HttpRequest {
  readonly method: string;
  /** Path without query string, e.g. `/api/chat`. */
  readonly path: string;
  /** The route template API Gateway matched (`/api/{proxy+}`), when the event says. */
  readonly resource: string | undefined;
  /** Lower-cased names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly pathParameters: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** The body as UTF-8 text: the event's own string when it carried text, with no bytes made. */
  bodyText(): string;
  readonly sourceIp: string;
  readonly requestId: string;
  /**
   * Who sent it: the role and id of its key, as the handler wrapper's key check found them (./api-keys);
   * `UNCHECKED` before that, and on a router that checks no keys.
   */
  readonly caller: Caller;
  header(name: string): string | undefined;
}

function isV2(event: LambdaHttpEvent): event is APIGatewayProxyEventV2 {
  return (event as { version?: unknown }).version === '2.0';
}

function lowerCaseHeaders(
  single: Record<string, string | undefined> | null | undefined,
  multi?: Record<string, string[] | undefined> | null,
): Record<string, string> {
  // for…in, not Object.entries: no array of pairs per header on every request that reads one.
  const headers: Record<string, string> = {};
  if (multi !== undefined && multi !== null) {
    for (const name in multi) {
      const values = multi[name];
      if (values !== undefined)
        headers[name.toLowerCase()] = values.length === 1 ? (values[0] as string) : values.join(', ');
    }
  }
  if (single !== undefined && single !== null) {
    for (const name in single) {
      const value = single[name];
      const key = name.toLowerCase();
      if (value !== undefined && headers[key] === undefined) headers[key] = value;
    }
  }
  return headers;
}

const NO_VALUES: Readonly<Record<string, string>> = Object.freeze({});

function definedValues(record: Record<string, string | undefined> | null | undefined): Record<string, string> {
  if (record === undefined || record === null) return NO_VALUES as Record<string, string>;
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(record)) if (value !== undefined) result[key] = value;
  return result;
}

const EMPTY_BODY = Buffer.alloc(0);

/**
 * The event's body, checked against the limit: base64 decoded to bytes, text kept as it is (its bytes are
 * made only if a route asks for them). Text of at most a third of the limit in UTF-16 units fits without
 * counting its UTF-8 bytes (three at most per unit).
 */
function checkedBody(body: string | null | undefined, isBase64Encoded: boolean): string | Buffer {
  if (body === undefined || body === null || body === '') return EMPTY_BODY;
  if (!isBase64Encoded) {
    if (body.length * 3 > MAX_BODY_BYTES && Buffer.byteLength(body) > MAX_BODY_BYTES) throw tooLarge();
    return body;
  }
  // A base64 body is 4/3 of its bytes: refuse before decoding something far over the limit.
  if (Math.floor((body.length * 3) / 4) > MAX_BODY_BYTES + 2) throw tooLarge();
  const bytes = Buffer.from(body, 'base64');
  if (bytes.length > MAX_BODY_BYTES) throw tooLarge();
  return bytes;
}

function tooLarge(): PayloadTooLargeError {
  return new PayloadTooLargeError(`request body is larger than the ${MAX_BODY_BYTES / (1024 * 1024)} MB limit`);
}

/** The path without its query, normalised once for routing and the error family (`normalizePath`). */
function stripQuery(path: string): string {
  const question = path.indexOf('?');
  return normalizePath(question === -1 ? path : path.slice(0, question));
}

/**
 * Builds the request view; throws `PayloadTooLargeError` for bodies over the Lambda limit.
 * `matchedParameters` come from the route template, for events that carry none (payload 2.0).
 */
export function toHttpRequest(
  event: LambdaHttpEvent,
  matchedParameters?: Readonly<Record<string, string>>,
): HttpRequest {
  const request = isV2(event) ? fromV2(event) : fromV1(event);
  if (matchedParameters !== undefined && Object.keys(matchedParameters).length > 0) {
    request.pathParameters = { ...matchedParameters, ...request.pathParameters };
  }
  return request;
}

/** Method and path, read straight off the event: enough to pick a route before building the view. */
export function routingKeyOf(event: LambdaHttpEvent): { method: string; path: string; resource: string | undefined } {
  if (isV2(event)) {
    const routeKey = event.routeKey;
    return {
      method: event.requestContext.http.method.toUpperCase(),
      path: stripQuery(event.rawPath),
      resource: routeKey !== undefined && routeKey !== '$default' ? routeKey.split(' ').at(-1) : undefined,
    };
  }
  return { method: event.httpMethod.toUpperCase(), path: stripQuery(event.path), resource: event.resource };
}

/**
 * A request whose header and query maps are built on first use: most routes read neither, and
 * building them is most of what a request view costs. A class, so each request is one cheap object.
 */
class LazyRequest implements HttpRequest {
  private headerMap: Record<string, string> | undefined;
  private queryMap: Record<string, string> | undefined;
  caller: Caller = UNCHECKED;

  constructor(
    readonly method: string,
    readonly path: string,
    readonly resource: string | undefined,
    public pathParameters: Readonly<Record<string, string>>,
    /** Text as the event carried it, or bytes (base64 decoded, or none). */
    private content: string | Buffer,
    readonly sourceIp: string,
    readonly requestId: string,
    private readonly buildHeaders: () => Record<string, string>,
    private readonly buildQuery: () => Record<string, string>,
  ) {}

  get body(): Buffer {
    if (typeof this.content === 'string') this.content = Buffer.from(this.content, 'utf8');
    return this.content;
  }

  bodyText(): string {
    return typeof this.content === 'string' ? this.content : this.content.toString('utf8');
  }

  get headers(): Readonly<Record<string, string>> {
    this.headerMap ??= this.buildHeaders();
    return this.headerMap;
  }

  get query(): Readonly<Record<string, string>> {
    this.queryMap ??= this.buildQuery();
    return this.queryMap;
  }

  header(name: string): string | undefined {
    this.headerMap ??= this.buildHeaders();
    return this.headerMap[name.toLowerCase()];
  }
}

function fromV1(event: APIGatewayProxyEvent): LazyRequest {
  const buildQuery = () => {
    const query: Record<string, string> = { ...definedValues(event.queryStringParameters) };
    const multiQuery = event.multiValueQueryStringParameters;
    if (multiQuery !== null && multiQuery !== undefined) {
      for (const [key, values] of Object.entries(multiQuery)) {
        const last = values?.at(-1);
        if (last !== undefined) query[key] = last;
      }
    }
    return query;
  };
  return new LazyRequest(
    event.httpMethod.toUpperCase(),
    stripQuery(event.path),
    event.resource,
    definedValues(event.pathParameters),
    checkedBody(event.body, event.isBase64Encoded),
    event.requestContext?.identity?.sourceIp ?? '',
    event.requestContext?.requestId ?? '',
    () => lowerCaseHeaders(event.headers, event.multiValueHeaders),
    buildQuery,
  );
}

function fromV2(event: APIGatewayProxyEventV2): LazyRequest {
  const routeKey = event.routeKey;
  const resource = routeKey !== undefined && routeKey !== '$default' ? routeKey.split(' ').at(-1) : undefined;
  const buildHeaders = () => {
    const headers = lowerCaseHeaders(event.headers);
    if (event.cookies !== undefined && event.cookies.length > 0 && headers['cookie'] === undefined) {
      headers['cookie'] = event.cookies.join('; ');
    }
    return headers;
  };
  return new LazyRequest(
    event.requestContext.http.method.toUpperCase(),
    stripQuery(event.rawPath),
    resource,
    definedValues(event.pathParameters),
    checkedBody(event.body, event.isBase64Encoded),
    event.requestContext.http.sourceIp,
    event.requestContext.requestId,
    buildHeaders,
    () => Object.fromEntries(new URLSearchParams(event.rawQueryString ?? '')),
  );
}

/** Records who sent `request`, as the key check found (the handler wrapper only). */
export function admitCaller(request: HttpRequest, caller: Caller): void {
  if (request instanceof LazyRequest) request.caller = caller;
}
