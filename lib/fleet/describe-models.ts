/**
 * Asks a node's Ollama what its models are (`POST /api/show`): capabilities and trained context length,
 * which routing needs and `/api/tags` or a heartbeat may not carry. A few at a time, each bounded; a
 * model that cannot be described is left out and asked about again later.
 */
import { parseOllamaShow } from '../wire/ollama-node';
import { type ShowInfo, showInfoFromResponse } from './from-poll';
import { callNodeJson } from './node-client';

export type DescribeModels = (url: string, names: readonly string[]) => Promise<Map<string, ShowInfo>>;

const AT_ONCE = 4;

export function createModelDescriber(timeoutMs = 3000): DescribeModels {
  return async (url, names) => {
    const shows = new Map<string, ShowInfo>();
    for (let start = 0; start < names.length; start += AT_ONCE) {
      await Promise.all(
        names.slice(start, start + AT_ONCE).map(async (name) => {
          try {
            const parsed = parseOllamaShow(await callNodeJson(url, '/api/show', { body: { model: name }, timeoutMs }));
            if (parsed.ok) shows.set(name, showInfoFromResponse(parsed.value));
          } catch {
            // Left undescribed: inferred capabilities stand until the next try.
          }
        }),
      );
    }
    return shows;
  };
}
