/**
 * The error body each wire family promises (ARCHITECTURE.md §9.1), as checks the fault and fuzz tests share:
 * Ollama `/api/*` `{"error": string}`; OpenAI `/v1/*`, fleet and dashboard paths
 * `{"error": {message, type, param, code}}`; Anthropic `/v1/messages*` `{"type": "error", "error": {type, message}}`.
 */

export type Family = 'ollama' | 'openai' | 'anthropic';

export function familyOf(path: string): Family {
  if (path.startsWith('/v1/messages')) return 'anthropic';
  if (path.startsWith('/api/')) return 'ollama';
  return 'openai';
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const sameKeys = (value: Record<string, unknown>, keys: readonly string[]) =>
  Object.keys(value).sort().join(',') === [...keys].sort().join(',');

const stringOrNull = (value: unknown) => value === null || typeof value === 'string';

/** Why `body` is not an error in `family`'s shape, or undefined when it is. */
export function shapeProblem(family: Family, body: unknown): string | undefined {
  if (!isRecord(body)) return 'the body is not a JSON object';
  switch (family) {
    case 'ollama':
      return sameKeys(body, ['error']) && typeof body['error'] === 'string' ? undefined : 'not {"error": string}';
    case 'openai': {
      const error = body['error'];
      const ok =
        sameKeys(body, ['error']) &&
        isRecord(error) &&
        sameKeys(error, ['message', 'type', 'param', 'code']) &&
        typeof error['message'] === 'string' &&
        typeof error['type'] === 'string' &&
        stringOrNull(error['param']) &&
        stringOrNull(error['code']);
      return ok ? undefined : 'not {"error": {message, type, param, code}}';
    }
    case 'anthropic': {
      const error = body['error'];
      const ok =
        sameKeys(body, ['type', 'error']) &&
        body['type'] === 'error' &&
        isRecord(error) &&
        sameKeys(error, ['type', 'message']) &&
        typeof error['type'] === 'string' &&
        typeof error['message'] === 'string';
      return ok ? undefined : 'not {"type": "error", "error": {type, message}}';
    }
  }
}

/** The text of a body parsed as JSON, or the text itself when it is not JSON. */
export function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** What a stream's last frame says went wrong, in the family's in-band framing; undefined when it ended well. */
export function inBandError(family: Family, text: string): unknown {
  if (family === 'ollama') {
    const last = parsedOrText(text.trim().split('\n').at(-1) ?? '');
    return typeof last === 'object' && last !== null && 'error' in last ? last : undefined;
  }
  const events = text.trim().split('\n\n');
  const last = events.at(-1) ?? '';
  const data = last
    .split('\n')
    .find((line) => line.startsWith('data: '))
    ?.slice('data: '.length);
  const parsed = data === undefined ? undefined : parsedOrText(data);
  if (family === 'anthropic') return last.startsWith('event: error') ? parsed : undefined;
  return typeof parsed === 'object' && parsed !== null && 'error' in parsed ? parsed : undefined;
}
