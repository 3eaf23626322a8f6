/**
 * JSON calls to nodes (polls, `/api/show`): bounded in time, abortable, the reply parsed in one place and
 * returned as `unknown` for the caller's schema; any failure is an `UpstreamError` whose message says what
 * failed in words ("the node refused the connection") and whose `detail` keeps the URL and code for the log.
 */
import type { Dispatcher } from 'undici';
import { UpstreamError } from '../../core/errors';
import { nodeFailedStatus, nodeUnreachable, technicalCause } from '../../core/fleet/node-failure';
import { createDeadline } from '../../core/stream/deadline';
import { parseJson } from '../../core/wire/json';
import { nodeErrorText } from '../../core/wire/node-error-text';
import { nodeHttp } from './node-http';

export interface NodeCallOptions {
  /** Whole-call budget; the call is aborted after it. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** GETs (or POSTs, with `body`) a node path and returns the parsed JSON; throws `UpstreamError` on any failure. */
export async function callNodeJson(
  baseUrl: string,
  path: string,
  options: NodeCallOptions & { readonly method?: 'GET' | 'POST'; readonly body?: unknown } = {},
): Promise<unknown> {
  const url = `${baseUrl}${path}`;
  // A timer we own (not `AbortSignal.timeout`, which the collector may take: ../stream/deadline), and
  // undici's own header and body time-outs behind it.
  const timeoutMs = options.timeoutMs ?? 5000;
  const deadline = createDeadline(timeoutMs, options.signal);
  try {
    return await requestJson(url, options, timeoutMs, deadline.signal);
  } finally {
    deadline.clear();
  }
}

async function requestJson(
  url: string,
  options: { readonly method?: 'GET' | 'POST'; readonly body?: unknown },
  timeoutMs: number,
  signal: AbortSignal,
): Promise<unknown> {
  const { request } = nodeHttp();
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers: options.body === undefined ? {} : { 'content-type': 'application/json' },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
  } catch (error) {
    throw nodeUnreachable(error, url, timeoutMs);
  }
  let text: string;
  try {
    text = await response.body.text();
  } catch (error) {
    throw new UpstreamError("the node's reply broke off", response.statusCode, {
      cause: error,
      detail: `${url}: reading the reply failed: ${technicalCause(error)}`,
    });
  }
  if (response.statusCode >= 500) throw nodeFailedStatus(response.statusCode, url, text);
  if (response.statusCode >= 400) {
    // The node refusing the call is its own word to pass on (bounded); a 5xx's output is not.
    const words = nodeErrorText(Buffer.from(text));
    throw new UpstreamError(
      `the node refused the call (HTTP ${response.statusCode}${words === undefined ? '' : `: ${words}`})`,
      response.statusCode,
      { detail: `${url} answered ${response.statusCode}: ${text.slice(0, 500)}` },
    );
  }
  const parsed = parseJson(text);
  if (!parsed.ok) {
    throw new UpstreamError('the node answered with invalid JSON', response.statusCode, {
      detail: `${url} answered with invalid JSON: ${parsed.error}`,
    });
  }
  return parsed.value;
}
