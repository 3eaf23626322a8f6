/** Shared helpers for the simulated-fleet tests: JSON posts, NDJSON reading with arrival times, a fake router. */
import { createServer, type Server } from 'node:http';

export function postJson(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...init,
  });
}

export interface TimedLines {
  readonly lines: string[];
  /** ms since the request was sent, per line, when it arrived. */
  readonly arrivals: number[];
  /** Separate body chunks received. */
  readonly reads: number;
  /** The body ended with an error (e.g. the socket was destroyed). */
  readonly failed: boolean;
}

/** Reads an NDJSON body line by line, noting when each line arrived. */
export async function readLines(response: Response, startedAt: number = performance.now()): Promise<TimedLines> {
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  const lines: string[] = [];
  const arrivals: number[] = [];
  let buffer = '';
  let reads = 0;
  let failed = false;
  while (reader !== undefined) {
    const chunk = await reader.read().catch(() => undefined);
    if (chunk === undefined) {
      failed = true;
      break;
    }
    if (chunk.done) break;
    reads++;
    buffer += decoder.decode(chunk.value, { stream: true });
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      lines.push(buffer.slice(0, newline));
      arrivals.push(performance.now() - startedAt);
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
    }
  }
  if (buffer !== '') lines.push(buffer);
  return { lines, arrivals, reads, failed };
}

export function parseLines<T = Record<string, unknown>>(lines: readonly string[]): T[] {
  return lines.map((line) => JSON.parse(line) as T);
}

export type PostedBody = Record<string, unknown> & { readonly node_id?: unknown; readonly draining?: unknown };

export interface FakeRouter {
  readonly url: string;
  readonly posts: { path: string; body: PostedBody; authorization: string | undefined }[];
  /** Status the next heartbeats get (default 200). */
  status: number;
  close(): Promise<void>;
}

/** A tiny HTTP server standing in for the router: records every POST and answers like `/heartbeat`. */
export async function startFakeRouter(): Promise<FakeRouter> {
  const posts: FakeRouter['posts'] = [];
  const state = { status: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as PostedBody;
      posts.push({ path: req.url ?? '', body, authorization: req.headers.authorization });
      const draining = body.draining === true;
      const reply = draining ? { status: 'draining', node_id: body.node_id } : { status: 'ok', node_status: 'online' };
      res.writeHead(state.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(state.status === 200 ? reply : { error: 'router says no' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    get status() {
      return state.status;
    },
    set status(value: number) {
      state.status = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `check` every 10 ms until it returns true or `timeoutMs` passes. */
export async function waitFor(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The error code behind a failed fetch (`ECONNREFUSED`, …). */
export async function fetchErrorCode(url: string): Promise<string | undefined> {
  try {
    await fetch(url);
    return undefined;
  } catch (error) {
    // Not `instanceof Error`: fetch's errors come from Node's realm, not the test sandbox's.
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code;
  }
}
