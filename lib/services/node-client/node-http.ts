/**
 * The one HTTP client to nodes (ARCHITECTURE.md §3.7): an undici Agent with keep-alive pools per node,
 * short connect time-outs (a dead node is known fast) and generous header/body time-outs (a model load
 * can take minutes before the first byte; callers bound their own waits). undici is half of a function
 * bundle, so it is loaded on the first call to a node, not at cold start.
 */
import type { Agent } from 'undici';

type Undici = typeof import('undici');

export interface NodeHttp {
  readonly request: Undici['request'];
  readonly agent: Agent;
}

let client: NodeHttp | undefined;

export function nodeHttp(): NodeHttp {
  if (client === undefined) {
    const { Agent: UndiciAgent, request }: Undici = require('undici');
    const agent = new UndiciAgent({
      connect: { timeout: 2000 },
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      headersTimeout: 600_000,
      bodyTimeout: 600_000,
      connections: 256,
      pipelining: 1,
    });
    client = { request, agent };
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
