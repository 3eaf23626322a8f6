/**
 * The Lambda frame without routing (docs/performance-journal.md, "a lone request from both ends"): the
 * emulator serving one streaming handler built with lib/services/http's wrapper, whose `/api/chat`
 * parses the body, posts it to one node through the router's node client and writes the node's answer
 * back. What the router's sequential figure would be if routing cost nothing: the bench prints it beside
 * the router's, so a run says how much of the router's added latency is the frame and how much routing.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { installAwsLambdaGlobal } from '../emulator/lambda-runtime';
import type { EmulatorFunction } from '../emulator/routes';
import { createEmulatorServer } from '../emulator/server';
import { createHandler, type Route } from '../lib/services/http/handler';
import { readJson, requireModel } from '../lib/services/http/parse-json';
import { JSON_TYPE } from '../lib/services/http/reply';
import { compileRoutePattern } from '../lib/services/http/route-pattern';
import { readNodeBody } from '../lib/services/node-client/node-stream';
import { openChatStream } from '../lib/services/node-client/open-chat-stream';

/** As long as the router's default first-byte wait: the fast node answers in microseconds anyway. */
const FIRST_BYTE_TIMEOUT_MS = 300_000;

/** `POST /api/chat` relayed to `nodeUrl` as it came: the answer read whole, its status and type kept. */
export function frameRelayRoute(nodeUrl: string): Route {
  return async (request, response) => {
    const body = readJson(request);
    requireModel(body);
    const reply = await openChatStream(nodeUrl, '/api/chat', body, response.clientGone, FIRST_BYTE_TIMEOUT_MS);
    const answer = await readNodeBody(reply);
    response.start({
      statusCode: reply.status,
      headers: { 'content-type': reply.headers['content-type'] ?? JSON_TYPE },
    });
    await response.end(answer);
  };
}

/** Starts the frame relay on a free port of 127.0.0.1. */
export async function startFrameRelay(nodeUrl: string): Promise<{ url: string; server: Server }> {
  installAwsLambdaGlobal();
  const fn: EmulatorFunction = { name: 'frame', file: '', exportName: 'handler', timeoutSeconds: 30, scheduled: false };
  const handler = createHandler({ 'POST /api/chat': frameRelayRoute(nodeUrl) });
  const server = createEmulatorServer({
    table: {
      binaryMediaTypes: [],
      functions: [fn],
      routes: [{ method: 'POST', pattern: compileRoutePattern('/api/chat'), function: fn }],
    },
    loadHandler: () => handler,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
