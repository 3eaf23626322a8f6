/**
 * The node:http server every simulated machine runs on (Ollama node and sidecars): it listens, applies
 * the fault knobs before the handler sees a request, serves the control routes (`POST /_sim/faults`,
 * `GET /_sim/state`, never faulted) and can stop and resume listening on the same port.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { delay } from './clock';
import { applyFaultPatch, FaultController } from './faults';
import { isGone, parseJson, pathOf, readBody, sendError, sendJson } from './http';

export interface SimRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export type SimHandler = (request: SimRequest, res: ServerResponse) => void | Promise<void>;

export interface SimServerOptions {
  readonly host: string;
  /** 0 = an ephemeral port. */
  readonly port: number;
  readonly handle: SimHandler;
  /** Work requests: the ones `failNext` and `slowFirstByte` apply to. */
  readonly isWork: (method: string, path: string) => boolean;
  /** Extra fields for `GET /_sim/state`. */
  readonly state: () => Readonly<Record<string, unknown>>;
  /** Called with every request that reaches the server (not the control routes, not while hanging). */
  readonly record?: (request: SimRequest) => void;
}

export interface SimServer {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  readonly faults: FaultController;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/** Tracks open sockets so a "dead" machine can cut them, sparing the control request that asked. */
class Connections {
  readonly open = new Set<Socket>();
  readonly spared = new Set<Socket>();

  track(socket: Socket): void {
    this.open.add(socket);
    socket.on('close', () => {
      this.open.delete(socket);
      this.spared.delete(socket);
    });
  }

  /** Destroys every open socket but the spared ones; resolves once they are closed. */
  cutAll(): Promise<void> {
    const cut = [...this.open].filter((socket) => !this.spared.has(socket));
    const closed = cut.map((socket) => new Promise((resolve) => socket.once('close', resolve)));
    for (const socket of cut) socket.destroy();
    return Promise.all(closed).then(() => undefined);
  }
}

const REFUSE_SETTLE_MS = 10;

export async function startSimServer(options: SimServerOptions): Promise<SimServer> {
  const connections = new Connections();
  const server = createServer({ keepAliveTimeout: 60_000 });
  let port = options.port;
  const setListening = async (listening: boolean): Promise<void> => {
    if (!listening) {
      server.close();
      await connections.cutAll();
      // Give in-process clients a moment to see their pooled connections end, so their next request
      // opens a new connection (and is refused) instead of failing on a dead keep-alive socket.
      await delay(REFUSE_SETTLE_MS);
      return;
    }
    if (!server.listening) port = await listen(server, port, options.host);
  };
  const faults = new FaultController(setListening);
  server.on('connection', (socket: Socket) => connections.track(socket));
  server.on('request', (req, res) => {
    const method = req.method ?? 'GET';
    const path = pathOf(req);
    if (path.startsWith('/_sim/')) {
      void control(method, path, req, res);
      return;
    }
    if (faults.isHanging) return;
    void serve(method, path, req, res);
  });

  async function serve(method: string, path: string, req: IncomingMessage, res: ServerResponse) {
    const body = await readBody(req);
    if (isGone(res)) return;
    if (body === undefined) return sendError(res, 413, 'request body too large');
    const request: SimRequest = { method, path, headers: req.headers, body };
    options.record?.(request);
    if (options.isWork(method, path)) {
      const failure = faults.takeFailure();
      if (failure !== undefined) return sendError(res, failure, 'simulated failure');
      await delay(faults.firstByteDelayMs);
      if (isGone(res)) return;
    }
    try {
      await options.handle(request, res);
    } catch (error) {
      if (!res.headersSent) sendError(res, 500, error instanceof Error ? error.message : 'simulated node error');
      else res.destroy();
    }
  }

  async function control(method: string, path: string, req: IncomingMessage, res: ServerResponse) {
    if (method === 'GET' && path === '/_sim/state') {
      return sendJson(res, 200, { ...options.state(), port, faults: faults.state() });
    }
    if (method !== 'POST' || path !== '/_sim/faults') return sendError(res, 404, 'unknown control route');
    const parsed = parseJson((await readBody(req)) ?? Buffer.alloc(0));
    if (!parsed.ok) return sendError(res, 400, parsed.error);
    if (req.socket !== null) connections.spared.add(req.socket);
    const problem = await applyFaultPatch(faults, parsed.value);
    if (problem !== undefined) return sendError(res, 400, problem);
    res.setHeader('connection', 'close');
    sendJson(res, 200, { faults: faults.state() });
  }

  port = await listen(server, port, options.host);
  return {
    host: options.host,
    get port() {
      return port;
    },
    get url() {
      return `http://${options.host}:${port}`;
    },
    faults,
    close: () => closeServer(server, connections),
  };
}

async function closeServer(server: Server, connections: Connections): Promise<void> {
  connections.spared.clear();
  const closed = server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
  await connections.cutAll();
  await closed;
}
