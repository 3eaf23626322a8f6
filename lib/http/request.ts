/**
 * One request view over the two event shapes a handler can receive (DESIGN decision 2): API Gateway
 * REST proxy events (payload 1.0, production and the emulator) and Function URL / HTTP API events
 * (payload 2.0). Paths never carry the query string, header names are lower-cased, bodies are bytes.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { PayloadTooLargeError } from '../errors';

/** The Lambda request payload limit: bigger bodies are refused with 413 (contract §4). */
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
  readonly sourceIp: string;
  readonly requestId: string;
  header(name: string): string | undefined;
}

function isV2(event: LambdaHttpEvent): event is APIGatewayProxyEventV2 {
  return (event as { version?: unknown }).version === '2.0';
}

function lowerCaseHeaders(
  single: Record<string, string | undefined> | null | undefined,
  multi?: Record<string, string[] | undefined> | null,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (multi !== undefined && multi !== null) {
    for (const [name, values] of Object.entries(multi)) {
      if (values !== undefined) headers[name.toLowerCase()] = values.join(', ');
    }
  }
  if (single !== undefined && single !== null) {
    for (const [name, value] of Object.entries(single)) {
      const key = name.toLowerCase();
      if (value !== undefined && headers[key] === undefined) headers[key] = value;
    }
  }
  return headers;
}

function definedValues(record: Record<string, string | undefined> | null | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  if (record === undefined || record === null) return result;
  for (const [key, value] of Object.entries(record)) if (value !== undefined) result[key] = value;
  return result;
}

function decodeBody(body: string | null | undefined, isBase64Encoded: boolean): Buffer {
  if (body === undefined || body === null || body === '') return Buffer.alloc(0);
  // A base64 body is 4/3 of its bytes: refuse before decoding something far over the limit.
  const approximateBytes = isBase64Encoded ? Math.floor((body.length * 3) / 4) : Buffer.byteLength(body);
  if (approximateBytes > MAX_BODY_BYTES + 2) throw tooLarge();
  const bytes = isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  if (bytes.length > MAX_BODY_BYTES) throw tooLarge();
  return bytes;
}

function tooLarge(): PayloadTooLargeError {
  return new PayloadTooLargeError(`request body is larger than the ${MAX_BODY_BYTES / (1024 * 1024)} MB limit`);
}

function stripQuery(path: string): string {
  const question = path.indexOf('?');
  const bare = question === -1 ? path : path.slice(0, question);
  return bare === '' ? '/' : bare;
}

/** Builds the request view; throws `PayloadTooLargeError` for bodies over the Lambda limit. */
export function toHttpRequest(event: LambdaHttpEvent): HttpRequest {
  const view = isV2(event) ? fromV2(event) : fromV1(event);
  return { ...view, header: (name: string) => view.headers[name.toLowerCase()] };
}

function fromV1(event: APIGatewayProxyEvent): Omit<HttpRequest, 'header'> {
  const multiQuery = event.multiValueQueryStringParameters;
  const query: Record<string, string> = definedValues(event.queryStringParameters);
  if (multiQuery !== null && multiQuery !== undefined) {
    for (const [key, values] of Object.entries(multiQuery)) {
      const last = values?.at(-1);
      if (last !== undefined) query[key] = last;
    }
  }
  return {
    method: event.httpMethod.toUpperCase(),
    path: stripQuery(event.path),
    resource: event.resource,
    headers: lowerCaseHeaders(event.headers, event.multiValueHeaders),
    query,
    pathParameters: definedValues(event.pathParameters),
    body: decodeBody(event.body, event.isBase64Encoded),
    sourceIp: event.requestContext?.identity?.sourceIp ?? '',
    requestId: event.requestContext?.requestId ?? '',
  };
}

function fromV2(event: APIGatewayProxyEventV2): Omit<HttpRequest, 'header'> {
  const headers = lowerCaseHeaders(event.headers);
  if (event.cookies !== undefined && event.cookies.length > 0 && headers['cookie'] === undefined) {
    headers['cookie'] = event.cookies.join('; ');
  }
  const routeKey = event.routeKey;
  const resource = routeKey !== undefined && routeKey !== '$default' ? routeKey.split(' ').at(-1) : undefined;
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: stripQuery(event.rawPath),
    resource,
    headers,
    query: Object.fromEntries(new URLSearchParams(event.rawQueryString ?? '')),
    pathParameters: definedValues(event.pathParameters),
    body: decodeBody(event.body, event.isBase64Encoded),
    sourceIp: event.requestContext.http.sourceIp,
    requestId: event.requestContext.requestId,
  };
}
