/**
 * Builds the API Gateway REST proxy event (payload 1.0) a request would produce in AWS: original header
 * case with single and multi-value maps, query maps (null when empty), the matched `resource` template
 * and its path parameters, and a text body — or base64 for the API's binary media types.
 */

import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';

export interface EventInput {
  readonly request: IncomingMessage;
  readonly body: Buffer;
  readonly path: string;
  /** The query, when the request has one. */
  readonly search: URLSearchParams | undefined;
  readonly resource: string;
  readonly pathParameters: Record<string, string>;
  readonly isBinary: BinaryMediaTypeTest;
  readonly stage: string;
}

function headerMaps(rawHeaders: readonly string[]) {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] ?? '';
    const value = rawHeaders[index + 1] ?? '';
    headers[name] = value;
    const values = multiValueHeaders[name] ?? [];
    values.push(value);
    multiValueHeaders[name] = values;
  }
  return { headers, multiValueHeaders };
}

function queryMaps(search: URLSearchParams | undefined) {
  if (search === undefined) return { single: null, multi: null };
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [key, value] of search) {
    single[key] = value;
    const values = multi[key] ?? [];
    values.push(value);
    multi[key] = values;
  }
  const empty = Object.keys(single).length === 0;
  return { single: empty ? null : single, multi: empty ? null : multi };
}

/** Tells whether a request's content type is one of the API's binary media types. */
export type BinaryMediaTypeTest = (contentType: string | undefined) => boolean;

/**
 * `image/*` style patterns, matched against the request's content type like API Gateway does. Built
 * once per route table: the patterns are lower-cased and split into exact types and prefixes here, not
 * on every request.
 */
export function binaryMediaTypeMatcher(patterns: readonly string[]): BinaryMediaTypeTest {
  const wanted = patterns.map((pattern) => pattern.toLowerCase());
  if (wanted.includes('*/*')) return (contentType) => contentType !== undefined;
  const exact = new Set(wanted.filter((pattern) => !pattern.endsWith('/*')));
  const prefixes = wanted.filter((pattern) => pattern.endsWith('/*')).map((pattern) => pattern.slice(0, -1));
  if (exact.size === 0 && prefixes.length === 0) return () => false;
  return (contentType) => {
    if (contentType === undefined) return false;
    const semicolon = contentType.indexOf(';');
    const type = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
    return exact.has(type) || prefixes.some((prefix) => type.startsWith(prefix));
  };
}

export function buildLambdaEvent(input: EventInput): APIGatewayProxyEvent {
  const { request, body } = input;
  const { headers, multiValueHeaders } = headerMaps(request.rawHeaders);
  const query = queryMaps(input.search);
  const binary = input.isBinary(request.headers['content-type']);
  const method = (request.method ?? 'GET').toUpperCase();
  const now = Date.now();
  const requestId = randomUUID();
  const remote = request.socket.remoteAddress ?? '127.0.0.1';
  const sourceIp = remote.startsWith('::ffff:') ? remote.slice(7) : remote;
  return {
    resource: input.resource,
    path: input.path,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: query.single,
    multiValueQueryStringParameters: query.multi,
    pathParameters: Object.keys(input.pathParameters).length === 0 ? null : input.pathParameters,
    stageVariables: null,
    body: body.length === 0 ? null : body.toString(binary ? 'base64' : 'utf8'),
    isBase64Encoded: binary && body.length > 0,
    requestContext: {
      accountId: '000000000000',
      apiId: 'emulator',
      authorizer: undefined,
      protocol: `HTTP/${request.httpVersion}`,
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp,
        user: null,
        userAgent: request.headers['user-agent'] ?? null,
        userArn: null,
      },
      path: `/${input.stage}${input.path}`,
      stage: input.stage,
      requestId,
      requestTimeEpoch: now,
      resourceId: 'emulator',
      resourcePath: input.resource,
    },
  };
}
