/**
 * HTTP to nodes (DESIGN decision 7): one undici Agent with keep-alive pools per node, short connect
 * time-outs (a dead node is known fast) and bounded header/body time-outs, every call abortable.
 * JSON replies are parsed in one place and returned as `unknown` for the caller's schema.
 */
import type { Agent, Dispatcher } from 'undici';
import { UpstreamError } from '../errors';
import { parseJson } from '../http/parse-json';

export interface NodeCallOptions {
  /** Whole-call budget; the call is aborted after it. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

type Undici = typeof import('undici');

let undici: { readonly request: Undici['request']; readonly agent: Agent } | undefined;

/**
 * undici is half of a function bundle: it is loaded on the first call to a node, not at cold start,
 * so invocations that never reach a node (heartbeats, status pages) do not pay for it.
 */
function client() {
  if (undici === undefined) {
    const { Agent: UndiciAgent, request }: Undici = require('undici');
    const agent = new UndiciAgent({
      connect: { timeout: 2000 },
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      // Model loads can take minutes before the first byte; callers bound their own waits.
      headersTimeout: 600_000,
      bodyTimeout: 600_000,
      connections: 256,
      pipelining: 1,
    });
    undici = { request, agent };
  }
  return undici;
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

function combinedSignal(options: NodeCallOptions): AbortSignal {
  const signals = [AbortSignal.timeout(options.timeoutMs ?? 5000)];
  if (options.signal !== undefined) signals.push(options.signal);
  return AbortSignal.any(signals);
}

/** GETs (or POSTs, with `body`) a node path and returns the parsed JSON; throws `UpstreamError` on any failure. */
export async function callNodeJson(
  baseUrl: string,
  path: string,
  options: NodeCallOptions & { readonly method?: 'GET' | 'POST'; readonly body?: unknown } = {},
): Promise<unknown> {
  const url = `${baseUrl}${path}`;
  const { request, agent } = client();
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      dispatcher: agent,
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers: options.body === undefined ? {} : { 'content-type': 'application/json' },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal: combinedSignal(options),
    });
  } catch (error) {
    throw new UpstreamError(`${url}: ${describeError(error)}`, undefined, { cause: error });
  }
  let text: string;
  try {
    text = await response.body.text();
  } catch (error) {
    throw new UpstreamError(`${url}: reading the reply failed: ${describeError(error)}`, response.statusCode, {
      cause: error,
    });
  }
  if (response.statusCode >= 400) {
    throw new UpstreamError(`${url} answered ${response.statusCode}: ${text.slice(0, 200)}`, response.statusCode);
  }
  const parsed = parseJson(text);
  if (!parsed.ok) throw new UpstreamError(`${url} answered with invalid JSON: ${parsed.error}`, response.statusCode);
  return parsed.value;
}
