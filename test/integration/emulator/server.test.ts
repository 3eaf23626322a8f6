import { execFile } from 'node:child_process';
import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { installAwsLambdaGlobal } from '../../../emulator/lambda-runtime';
import type { EmulatorFunction, EmulatorRouteTable } from '../../../emulator/routes';
import { createEmulatorServer } from '../../../emulator/server';
import { createHandler, type RouteTable } from '../../../lib/services/http/handler';
import { sendJson } from '../../../lib/services/http/reply';
import { compileRoutePattern } from '../../../lib/services/http/route-pattern';

installAwsLambdaGlobal();

const seen: {
  events: APIGatewayProxyEvent[];
  aborted: boolean;
  writesBeforePause: number;
  writes: number;
  wholeFinished: boolean;
} = {
  wholeFinished: false,
  events: [],
  aborted: false,
  writesBeforePause: 0,
  writes: 0,
};
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const routes: RouteTable = {
  'GET /stream': async (_request, response) => {
    response.start({ statusCode: 201, headers: { 'content-type': 'application/x-ndjson', 'x-fleet-node': 'gpu-1' } });
    for (let index = 0; index < 3; index += 1) {
      await response.write(`{"i":${index}}\n`);
      await delay(120);
    }
    await response.end();
  },
  'POST /echo/{id}': (request, response) =>
    sendJson(response, { id: request.pathParameters['id'], bytes: request.body.length, query: request.query }),
  'GET /hang': async (_request, response) => {
    await response.write('x');
    await new Promise<void>((resolve) => response.signal.addEventListener('abort', () => resolve()));
    seen.aborted = true;
  },
  'GET /big': async (_request, response) => {
    const chunk = 'z'.repeat(64 * 1024);
    for (let index = 0; index < 200; index += 1) {
      await response.write(chunk);
      seen.writes += 1;
    }
    await response.end();
  },
};

function fn(name: string): EmulatorFunction {
  return { name, file: `${name}.js`, exportName: 'handler', timeoutSeconds: 5, scheduled: false };
}

const streamify = (Reflect.get(globalThis, 'awslambda') as { streamifyResponse<T>(handler: T): T }).streamifyResponse;
const recorder = createHandler(routes) as (event: unknown, stream: Writable, context: unknown) => Promise<void>;
const handlers: Record<string, unknown> = {
  main: streamify(async (event: APIGatewayProxyEvent, stream: Writable, context: unknown) => {
    seen.events.push(event);
    await recorder(event, stream, context);
  }),
  raw: (Reflect.get(globalThis, 'awslambda') as { streamifyResponse<T>(handler: T): T }).streamifyResponse(
    async (_event: unknown, stream: Writable) => {
      const aws = Reflect.get(globalThis, 'awslambda') as {
        HttpResponseStream: { from(s: Writable, p: object): Writable };
      };
      // Ends without writing: the real runtime then sends no prelude, so status and headers are lost.
      aws.HttpResponseStream.from(stream, { statusCode: 418, headers: { 'x-lost': 'yes' } }).end();
    },
  ),
  // Ends with the whole body in one call, as non-streaming answers do, and reports what the stream saw.
  whole: (Reflect.get(globalThis, 'awslambda') as { streamifyResponse<T>(handler: T): T }).streamifyResponse(
    async (event: APIGatewayProxyEvent, stream: Writable) => {
      const aws = Reflect.get(globalThis, 'awslambda') as {
        HttpResponseStream: { from(s: Writable, p: object): Writable };
      };
      // `?own=1`: the handler states the length itself, in its own spelling.
      const own = event.queryStringParameters?.['own'] === '1' ? { 'Content-Length': '14' } : {};
      const out = aws.HttpResponseStream.from(stream, { statusCode: 207, headers: { 'x-whole': 'yes', ...own } });
      let finished = false;
      out.once('finish', () => {
        finished = true;
      });
      await new Promise<void>((resolve) => out.end('{"whole":true}', () => resolve()));
      seen.wholeFinished = finished && out.writableFinished;
    },
  ),
  unfinished: (Reflect.get(globalThis, 'awslambda') as { streamifyResponse<T>(handler: T): T }).streamifyResponse(
    async () => undefined,
  ),
  buffered: async () => ({ statusCode: 202, headers: { 'X-Kind': 'buffered' }, body: 'plain body' }),
  slow: async () => {
    await delay(2500);
    return { statusCode: 200, body: 'too late' };
  },
};

const table: EmulatorRouteTable = {
  binaryMediaTypes: ['multipart/form-data'],
  functions: ['main', 'raw', 'whole', 'unfinished', 'buffered', 'slow'].map(fn),
  routes: [
    ...['GET /stream', 'POST /echo/{id}', 'GET /hang', 'GET /big', 'POST /api/chat'].map((key) => {
      const [method, path] = key.split(' ') as [string, string];
      return { method, pattern: compileRoutePattern(path), function: fn('main') };
    }),
    { method: 'GET', pattern: compileRoutePattern('/raw'), function: fn('raw') },
    { method: 'GET', pattern: compileRoutePattern('/whole'), function: fn('whole') },
    { method: 'GET', pattern: compileRoutePattern('/unfinished'), function: fn('unfinished') },
    { method: 'GET', pattern: compileRoutePattern('/buffered'), function: fn('buffered') },
    { method: 'GET', pattern: compileRoutePattern('/slow'), function: { ...fn('slow'), timeoutSeconds: 1 } },
  ],
};

let server: Server;
let base: string;
const logged: string[] = [];

beforeAll(async () => {
  server = createEmulatorServer({ table, loadHandler: (f) => handlers[f.name], log: (line) => logged.push(line) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** GETs a path and records each body chunk with the time it arrived. */
function getTimed(path: string): Promise<{ response: IncomingMessage; chunks: { at: number; text: string }[] }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    httpRequest(`${base}${path}`, (response) => {
      const chunks: { at: number; text: string }[] = [];
      response.on('data', (chunk: Buffer) => chunks.push({ at: Date.now() - started, text: chunk.toString() }));
      response.on('end', () => resolve({ response, chunks }));
    })
      .on('error', reject)
      .end();
  });
}

/**
 * Node's http client in its own process (in this one the race never shows: client and server share the
 * event loop) POSTs `rounds` bodies of 7 MB with a declared length; each outcome is `status body` or
 * the connection's error code.
 */
async function uploadFromAnotherProcess(url: string, rounds: number): Promise<string[]> {
  const client = `
    const http = require('node:http');
    const body = Buffer.alloc(7 * 1024 * 1024, 'x');
    const one = () => new Promise((resolve) => {
      const request = http.request(process.argv[1], { method: 'POST', headers: { 'content-length': String(body.length) } });
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk) => { text += chunk; });
        response.on('end', () => resolve(response.statusCode + ' ' + text));
      });
      request.on('error', (error) => resolve(error.code));
      request.end(body);
    });
    (async () => { const out = []; for (let i = 0; i < ${rounds}; i++) out.push(await one()); console.log(JSON.stringify(out)); })();
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', client, url]);
  return JSON.parse(stdout) as string[];
}

describe('createEmulatorServer', () => {
  it('streams each chunk to the client as the handler writes it', async () => {
    const { response, chunks } = await getTimed('/stream');

    expect(response.statusCode).toBe(201);
    expect(response.headers['x-fleet-node']).toBe('gpu-1');
    expect(response.headers['transfer-encoding']).toBe('chunked');
    const lines = chunks.map((chunk) => chunk.text).join('');
    expect(lines).toBe('{"i":0}\n{"i":1}\n{"i":2}\n');
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const last = chunks.at(-1)?.at ?? 0;
    // The first line arrived long before the handler finished (it sleeps 3 × 120 ms).
    expect(last - (chunks[0]?.at ?? last)).toBeGreaterThanOrEqual(200);
  });

  it('builds a payload 1.0 event with the matched resource and path parameters', async () => {
    const response = await fetch(`${base}/echo/abc?days=7&days=8`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Service-Tags': 'a,b' },
      body: JSON.stringify({ hello: 'world' }),
    });

    expect(await response.json()).toEqual({ id: 'abc', bytes: 17, query: { days: '8' } });
    const event = seen.events.at(-1);
    expect(event?.resource).toBe('/echo/{id}');
    expect(event?.path).toBe('/echo/abc');
    expect(event?.pathParameters).toEqual({ id: 'abc' });
    expect(event?.multiValueQueryStringParameters).toEqual({ days: ['7', '8'] });
    expect(event?.headers['X-Service-Tags']).toBe('a,b');
    expect(event?.isBase64Encoded).toBe(false);
    expect(event?.requestContext.identity.sourceIp).toBe('127.0.0.1');
  });

  it('passes binary media types base64-encoded', async () => {
    const form = new FormData();
    form.append('audio', new Blob([new Uint8Array([0, 255, 1, 254])]), 'a.wav');

    const response = await fetch(`${base}/echo/bin`, { method: 'POST', body: form });

    expect(response.status).toBe(200);
    const event = seen.events.at(-1);
    expect(event?.isBase64Encoded).toBe(true);
    expect(Buffer.from(event?.body ?? '', 'base64').includes(Buffer.from([0, 255, 1, 254]))).toBe(true);
  });

  it('answers an unknown route with 404 in the family shape', async () => {
    const ollama = await fetch(`${base}/api/nothing`);
    const anthropic = await fetch(`${base}/v1/messages/nothing`);
    const openai = await fetch(`${base}/v1/nothing`);

    expect(ollama.status).toBe(404);
    expect(await ollama.json()).toEqual({ error: 'no route for GET /api/nothing' });
    expect(await anthropic.json()).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: 'no route for GET /v1/messages/nothing' },
    });
    expect(((await openai.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
  });

  it('answers 405 for a known path and another method', async () => {
    const response = await fetch(`${base}/stream`, { method: 'DELETE' });

    expect(response.status).toBe(405);
  });

  it('refuses a body over 6 MB with 413 before invoking the handler', async () => {
    const before = seen.events.length;

    const response = await fetch(`${base}/echo/big`, { method: 'POST', body: 'x'.repeat(6 * 1024 * 1024 + 1) });

    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('6 MB');
    expect(seen.events.length).toBe(before);
  });

  it('answers a body cut short on an open connection with 408 in the family shape once its deadline passed', async () => {
    const short = createEmulatorServer({
      table,
      loadHandler: (f) => handlers[f.name],
      log: () => undefined,
      bodyTimeoutMs: 200,
    });
    await new Promise<void>((resolve) => short.listen(0, '127.0.0.1', resolve));
    const before = seen.events.length;
    try {
      const socket = connect((short.address() as AddressInfo).port, '127.0.0.1');
      socket.write(
        'POST /echo/half HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":',
      );
      const reply = await new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        socket.on('close', () => resolve(text));
      });

      expect(reply).toMatch(/^HTTP\/1\.1 408 /);
      expect(reply).toMatch(/connection: close/i);
      expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual({
        error: {
          message: 'request body not received within 0.2 s',
          type: 'invalid_request_error',
          param: null,
          code: 'request_timeout',
        },
      });
      expect(seen.events.length).toBe(before);
    } finally {
      short.closeAllConnections();
      await new Promise((resolve) => short.close(resolve));
    }
  });

  it('lets a client in another process that sends 7 MB read the 413 every time', async () => {
    const outcomes = await uploadFromAnotherProcess(`${base}/api/chat`, 20);

    expect(outcomes).toEqual(
      Array.from({ length: 20 }, () => '413 {"error":"request body is larger than the 6 MB limit"}'),
    );
  });

  it('logs a client that cut its upload short as one warning without a stack', async () => {
    logged.length = 0;
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"model":');
    await delay(50);
    socket.destroy();
    await delay(100);

    expect(logged).toHaveLength(1);
    expect(JSON.parse(logged[0] ?? '{}')).toEqual({
      level: 'warn',
      msg: 'client left before its request body arrived',
      path: '/api/chat',
    });
  });

  it('serves //paths and trailing slashes as the normalised path, answering in its family', async () => {
    const before = seen.events.length;

    const doubled = await fetch(`${base}//echo/abc/`, { method: 'POST', body: '{}' });
    const unknown = await fetch(`${base}//api/nothing/`);

    expect(doubled.status).toBe(200);
    expect(seen.events.at(-1)?.path).toBe('/echo/abc');
    expect(seen.events.length).toBe(before + 1);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'no route for GET /api/nothing' });
  });

  it('drops the prelude of a stream ended without a write, like the real runtime', async () => {
    const response = await fetch(`${base}/raw`);

    expect(response.status).toBe(200);
    expect(response.headers.get('x-lost')).toBeNull();
  });

  it('sends a reply ended whole with its prelude and length, and finishes the stream before the callback', async () => {
    seen.wholeFinished = false;
    const response = await fetch(`${base}/whole`);

    expect(response.status).toBe(207);
    expect(response.headers.get('x-whole')).toBe('yes');
    expect(response.headers.get('content-length')).toBe('14');
    expect(response.headers.get('transfer-encoding')).toBeNull();
    expect(await response.json()).toEqual({ whole: true });
    expect(seen.wholeFinished).toBe(true);
  });

  it('keeps a length the handler set itself, without a second one', async () => {
    const { response } = await getTimed('/whole?own=1');
    const lengths = response.rawHeaders.filter(
      (_, index, raw) => index % 2 === 0 && /^content-length$/i.test(raw[index] ?? ''),
    );

    expect(lengths).toEqual(['Content-Length']);
    expect(response.headers['content-length']).toBe('14');
  });

  it('fails an invocation whose stream was never ended', async () => {
    const response = await fetch(`${base}/unfinished`);

    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ message: 'Internal server error' });
  });

  it('writes a buffered handler result with its headers and length', async () => {
    const response = await fetch(`${base}/buffered`);

    expect(response.status).toBe(202);
    expect(response.headers.get('x-kind')).toBe('buffered');
    expect(response.headers.get('content-length')).toBe('10');
    expect(await response.text()).toBe('plain body');
  });

  it("answers 504 when a handler runs past its function's time-out", async () => {
    const response = await fetch(`${base}/slow`);

    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ message: 'Endpoint request timed out' });
  });

  it('tells the handler when the client goes away', async () => {
    const controller = new AbortController();
    const response = await fetch(`${base}/hang`, { signal: controller.signal });
    const reader = response.body?.getReader();
    await reader?.read();

    controller.abort();
    for (let waited = 0; waited < 2000 && !seen.aborted; waited += 20) await delay(20);

    expect(seen.aborted).toBe(true);
  });

  it('holds the handler back while the client does not read', async () => {
    seen.writes = 0;
    const paused = await new Promise<IncomingMessage>((resolve) => {
      httpRequest(`${base}/big`, resolve).end();
    });
    paused.pause();
    await delay(300);
    seen.writesBeforePause = seen.writes;

    const drained = new Promise((resolve) => paused.on('end', resolve));
    paused.resume();
    await drained;

    // 200 chunks of 64 KiB are 12.5 MiB: far more than socket and stream buffers hold.
    expect(seen.writesBeforePause).toBeLessThan(100);
    expect(seen.writes).toBe(200);
  });
});

describe('installAwsLambdaGlobal', () => {
  it('adds the streaming API to an awslambda object the AWS SDK created first', () => {
    const saved: unknown = Reflect.get(globalThis, 'awslambda');
    // What @aws/lambda-invoke-store does when the SDK loads.
    Reflect.set(globalThis, 'awslambda', { invokeStore: true });
    try {
      installAwsLambdaGlobal();
      const installed = Reflect.get(globalThis, 'awslambda') as Record<string, unknown>;

      expect(installed['invokeStore']).toBe(true);
      expect(typeof installed['streamifyResponse']).toBe('function');
      expect(typeof installed['HttpResponseStream']).toBe('object');
    } finally {
      Reflect.set(globalThis, 'awslambda', saved);
    }
  });
});
