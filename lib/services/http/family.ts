/**
 * Which wire family a path belongs to: it decides the error envelope (ARCHITECTURE.md §9.1) and, for routed
 * requests, the stream framing. `/api/*` and `/` are Ollama's, `/v1/messages*` Anthropic's, everything
 * else (OpenAI `/v1/*`, rerank, fleet and dashboard paths) uses the OpenAI envelope.
 */
export type WireFamily = 'ollama' | 'openai' | 'anthropic';

export function familyForPath(path: string): WireFamily {
  if (path === '/' || path === '/api' || path.startsWith('/api/')) return 'ollama';
  if (path === '/v1/messages' || path.startsWith('/v1/messages/')) return 'anthropic';
  return 'openai';
}
