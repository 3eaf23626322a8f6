/**
 * What every simulated sidecar of a node agent shares (ARCHITECTURE.md §8.3): its own HTTP server with the fault
 * knobs, a busy flag the agent reports in its heartbeat, and a model list.
 */
import type { ServerResponse } from 'node:http';
import type { SimFaults } from './faults';
import { parseJson, sendDetail } from './http';
import { type SimRequest, startSimServer } from './sim-server';

export interface SimSidecar<M> {
  readonly url: string;
  readonly port: number;
  readonly models: readonly M[];
  readonly faults: SimFaults;
  /** Working on something now (`generating`, `transcribing`, `processing` in the heartbeat). */
  busy(): boolean;
  close(): Promise<void>;
}

export type SidecarRoute = (request: SimRequest, res: ServerResponse) => void | Promise<void>;

export interface SidecarServerOptions<M> {
  readonly host: string;
  readonly port: number;
  readonly models: readonly M[];
  /** Routes keyed `METHOD /path`; a key ending in `/*` matches any path under it. */
  readonly routes: Readonly<Record<string, SidecarRoute>>;
  readonly busy: () => boolean;
}

function findRoute(routes: Readonly<Record<string, SidecarRoute>>, request: SimRequest): SidecarRoute | undefined {
  const exact = routes[`${request.method} ${request.path}`];
  if (exact !== undefined) return exact;
  const parent = request.path.slice(0, request.path.lastIndexOf('/'));
  return routes[`${request.method} ${parent}/*`];
}

export async function startSidecarServer<M>(options: SidecarServerOptions<M>): Promise<SimSidecar<M>> {
  const server = await startSimServer({
    host: options.host,
    port: options.port,
    isWork: () => true,
    state: () => ({ models: options.models, busy: options.busy() }),
    handle: (request, res) => {
      const route = findRoute(options.routes, request);
      if (route === undefined) {
        sendDetail(res, 404, 'Not Found');
        return;
      }
      return route(request, res);
    },
  });
  return {
    get url() {
      return server.url;
    },
    get port() {
      return server.port;
    },
    models: options.models,
    faults: server.faults,
    busy: options.busy,
    close: () => server.close(),
  };
}

/** Parses a JSON body or answers 400 itself (returns undefined then). */
export function jsonBody(request: SimRequest, res: ServerResponse): unknown {
  const parsed = parseJson(request.body);
  if (parsed.ok) return parsed.value;
  sendDetail(res, 400, parsed.error);
  return undefined;
}
