/**
 * The one HTTP client to nodes (ARCHITECTURE.md §3.7): an undici Agent with keep-alive pools per node,
 * short connect time-outs (a dead node is known fast) and generous header/body time-outs (a model load
 * can take minutes before the first byte; callers bound their own waits). undici is loaded on the first
 * call to a node, not at cold start, and only the part the router calls: in a Lambda bundle `undici` is
 * scripts/vendor-undici.cjs (the Agent and the request API on it), not undici's index.
 */
import type { Agent, Dispatcher } from 'undici';

type Undici = typeof import('undici');

/** undici's `request(url, options)`, sent through the Agent's own `request` (no global dispatcher). */
export type NodeRequest = (
  url: string,
  options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'>,
) => Promise<Dispatcher.ResponseData>;

export interface NodeHttp {
  readonly request: NodeRequest;
  readonly agent: Agent;
}

/** What undici's top-level `request` does with a URL before it calls the dispatcher's `request`. */
export function requestThrough(dispatcher: Dispatcher): NodeRequest {
  return (url, options) => {
    const target = new URL(url);
    return dispatcher.request({ ...options, origin: target.origin, path: `${target.pathname}${target.search}` });
  };
}

let client: NodeHttp | undefined;

export function nodeHttp(): NodeHttp {
  if (client === undefined) {
    const { Agent: UndiciAgent }: Pick<Undici, 'Agent'> = require('undici');
    const agent = new UndiciAgent({
      connect: { timeout: 2000 },
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      headersTimeout: 600_000,
      bodyTimeout: 600_000,
      connections: 256,
      pipelining: 1,
    });
    client = { request: requestThrough(agent), agent };
  }
  return client;
}

/** `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:11434`, for logs and error messages. */
export function describeNetworkError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
