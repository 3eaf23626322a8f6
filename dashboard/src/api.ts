/**
 * Calls to the router's dashboard API from the page. Paths are relative (`api/overview`, `events`): the
 * page lives at `<base>/dashboard/<view>`, so they resolve under the same `/dashboard/` whatever prefix
 * the router is behind (API Gateway's `/dev` stage, a reverse proxy). A 401 asks the user for the API key
 * once and repeats the call with it.
 */
import { authHeaders, currentKey, needKey } from './key-store';

export type QueryValue = string | number | boolean | undefined | null;
export type Query = Readonly<Record<string, QueryValue>>;

/** A refusal or failure, with the message the router gave in its error shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The absolute URL of a dashboard path, with the query's defined values. */
export function apiUrl(path: string, query: Query = {}): string {
  const url = new URL(path, document.baseURI);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
  }
  return url.toString();
}

/** The message in any of the router's error shapes (OpenAI, Anthropic, Ollama), or the status line. */
async function errorOf(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`.trim();
  try {
    const body = (await response.json()) as { error?: string | { message?: string }; message?: string };
    const found = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof found === 'string' && found !== '') message = found;
  } catch {
    // Not JSON: the status line says enough.
  }
  return new ApiError(response.status, message);
}

/** fetch with the key, asking for one on a 401 and trying again with it. */
export async function authorizedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  for (;;) {
    const sent = currentKey();
    const response = await fetch(url, {
      ...init,
      headers: { ...authHeaders(), ...(init.headers as Record<string, string>) },
    });
    if (response.status !== 401) return response;
    await response.body?.cancel();
    await needKey(sent);
  }
}

export async function apiGet<T>(path: string, query: Query = {}, signal?: AbortSignal): Promise<T> {
  const response = await authorizedFetch(apiUrl(path, query), signal === undefined ? {} : { signal });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

export async function apiPost<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const response = await authorizedFetch(apiUrl(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

/**
 * POSTs and reads an NDJSON reply line by line (a pull's progress), calling `onLine` with each object as
 * it arrives. A line with an `error` field ends the call with that error, as the stream reported it.
 */
export async function apiPostLines(
  path: string,
  body: unknown,
  onLine: (line: Record<string, unknown>) => void,
  signal?: AbortSignal,
): Promise<void> {
  const response = await authorizedFetch(apiUrl(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
  if (!response.ok || response.body === null) throw await errorOf(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  const take = (text: string) => {
    if (text.trim() === '') return;
    const line = JSON.parse(text) as Record<string, unknown>;
    if (typeof line['error'] === 'string') throw new ApiError(response.status, line['error']);
    onLine(line);
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += value;
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      take(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
    }
  }
  take(buffered);
}
