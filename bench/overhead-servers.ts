/**
 * The servers the emulator-overhead benchmark compares, started in their own process so the load
 * generator does not share their event loop: a bare node:http server answering a small JSON body; the
 * emulator serving the same answer through a hand-written streaming Lambda handler (the emulator's own
 * cost); and through a streaming and a buffered handler built with lib/services/http's wrapper (request view,
 * routing, error rendering: the path every real request takes).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';
import { installAwsLambdaGlobal } from '../emulator/lambda-runtime';
import type { EmulatorFunction } from '../emulator/routes';
import { createEmulatorServer } from '../emulator/server';
import { createBufferedHandler, createHandler, type RouteTable } from '../lib/services/http/handler';
import { sendJson } from '../lib/services/http/reply';
import { compileRoutePattern } from '../lib/services/http/route-pattern';

const BODY = { status: 'ok', nodes: 3 };

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

export interface OverheadPorts {
  readonly bare: number;
  readonly raw: number;
  readonly streaming: number;
  readonly buffered: number;
}

interface AwsLambdaStandIn {
  streamifyResponse<T>(handler: T): T;
  HttpResponseStream: { from(stream: Writable, prelude: object): Writable };
}

/** A hand-written streaming handler, as AWS documents them: what the emulator alone costs. */
function rawStreamingHandler(text: string) {
  const aws = Reflect.get(globalThis, 'awslambda') as AwsLambdaStandIn;
  return aws.streamifyResponse(async (_event: unknown, stream: Writable) => {
    const out = aws.HttpResponseStream.from(stream, {
      statusCode: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    await new Promise<void>((resolve) => out.end(text, () => resolve()));
  });
}

export async function startOverheadServers(): Promise<OverheadPorts> {
  const text = JSON.stringify(BODY);
  const bare = createServer((_request, response) => {
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  });

  installAwsLambdaGlobal();
  const routes: RouteTable = { 'GET /status': (_request, reply) => sendJson(reply, BODY) };
  const fn = (name: string): EmulatorFunction => ({
    name,
    file: '',
    exportName: 'handler',
    timeoutSeconds: 30,
    scheduled: false,
  });
  const handlers: Record<string, unknown> = {
    raw: rawStreamingHandler(text),
    streaming: createHandler(routes),
    buffered: createBufferedHandler(routes),
  };
  const emulator = (name: string) =>
    createEmulatorServer({
      table: {
        binaryMediaTypes: [],
        functions: [fn(name)],
        routes: [{ method: 'GET', pattern: compileRoutePattern('/status'), function: fn(name) }],
      },
      loadHandler: (f) => handlers[f.name],
    });

  return {
    bare: await listen(bare),
    raw: await listen(emulator('raw')),
    streaming: await listen(emulator('streaming')),
    buffered: await listen(emulator('buffered')),
  };
}
