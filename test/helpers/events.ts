/** Event factories: the API Gateway payloads a handler receives, built the way AWS builds them. */
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';

export interface EventInput {
  readonly method?: string;
  readonly path: string;
  readonly resource?: string;
  readonly query?: Record<string, string>;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer | object;
  readonly base64?: boolean;
  readonly sourceIp?: string;
}

function bodyText(input: EventInput): { body: string | null; isBase64Encoded: boolean } {
  if (input.body === undefined) return { body: null, isBase64Encoded: false };
  if (Buffer.isBuffer(input.body)) return { body: input.body.toString('base64'), isBase64Encoded: true };
  const text = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
  if (input.base64 === true) return { body: Buffer.from(text).toString('base64'), isBase64Encoded: true };
  return { body: text, isBase64Encoded: false };
}

/** A REST API proxy event (payload 1.0), as production and the emulator send. */
export function makeHttpEvent(input: EventInput): APIGatewayProxyEvent {
  const headers = { 'Content-Type': 'application/json', ...input.headers };
  const query = input.query ?? {};
  const hasQuery = Object.keys(query).length > 0;
  const method = input.method ?? 'GET';
  return {
    resource: input.resource ?? input.path,
    path: input.path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([key, value]) => [key, [value]])),
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery
      ? Object.fromEntries(Object.entries(query).map(([key, value]) => [key, [value]]))
      : null,
    pathParameters: null,
    stageVariables: null,
    ...bodyText(input),
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      authorizer: undefined,
      protocol: 'HTTP/1.1',
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
        sourceIp: input.sourceIp ?? '10.0.0.9',
        user: null,
        userAgent: 'jest',
        userArn: null,
      },
      path: `/test${input.path}`,
      stage: 'test',
      requestId: 'request-1',
      requestTimeEpoch: 0,
      resourceId: 'test',
      resourcePath: input.resource ?? input.path,
    },
  };
}

/** A Function URL / HTTP API event (payload 2.0). */
export function makeHttpEventV2(input: EventInput): APIGatewayProxyEventV2 {
  const query = new URLSearchParams(input.query ?? {}).toString();
  const headers = Object.fromEntries(
    Object.entries({ 'Content-Type': 'application/json', ...input.headers }).map(([key, value]) => [
      key.toLowerCase(),
      value,
    ]),
  );
  const method = input.method ?? 'GET';
  const { body, isBase64Encoded } = bodyText(input);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: input.path,
    rawQueryString: query,
    headers,
    ...(body === null ? {} : { body }),
    isBase64Encoded,
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      domainName: 'test.lambda-url.local',
      domainPrefix: 'test',
      http: {
        method,
        path: input.path,
        protocol: 'HTTP/1.1',
        sourceIp: input.sourceIp ?? '10.0.0.9',
        userAgent: 'jest',
      },
      requestId: 'request-2',
      routeKey: '$default',
      stage: '$default',
      time: '21/Nov/2026:06:00:00 +0000',
      timeEpoch: 0,
    },
  };
}
