/**
 * Asks a node's Ollama what its models are (`POST /api/show`): capabilities and trained context length,
 * which routing needs and `/api/tags` or a heartbeat may not carry. A few at a time, all within one
 * time budget (a heartbeat waits for this, and agents give up after 10 s); a model that cannot be
 * described is left out and not asked about again for a minute.
 */

import { type ShowInfo, showInfoFromResponse } from '../../core/fleet/from-poll';
import { createDeadline } from '../../core/stream/deadline';
import { parseOllamaShow } from '../../core/wire/ollama-node';
import { callNodeJson } from './node-client';

export type DescribeModels = (url: string, names: readonly string[]) => Promise<Map<string, ShowInfo>>;

export interface DescriberOptions {
  /** Time for one call to describe every model asked about. */
  readonly budgetMs?: number;
  /** How long a model that could not be described is left alone. */
  readonly retryAfterMs?: number;
  readonly now?: () => number;
}

const AT_ONCE = 4;

export function createModelDescriber(options: DescriberOptions = {}): DescribeModels {
  const budgetMs = options.budgetMs ?? 2000;
  const retryAfterMs = options.retryAfterMs ?? 60_000;
  const now = options.now ?? Date.now;
  // A cache, not state: losing it (a new container) only means asking again.
  const failedUntil = new Map<string, number>();

  return async (url, names) => {
    const shows = new Map<string, ShowInfo>();
    // Our own timer, cleared when done: an `AbortSignal.timeout` may be collected before it fires.
    const deadline = createDeadline(budgetMs);
    const { signal } = deadline;
    const due = names.filter((name) => (failedUntil.get(`${url} ${name}`) ?? 0) <= now());
    for (let start = 0; start < due.length && !signal.aborted; start += AT_ONCE) {
      await Promise.all(
        due.slice(start, start + AT_ONCE).map(async (name) => {
          const key = `${url} ${name}`;
          try {
            const reply = await callNodeJson(url, '/api/show', { body: { model: name }, signal, timeoutMs: budgetMs });
            const parsed = parseOllamaShow(reply);
            if (!parsed.ok) throw new Error(parsed.message);
            shows.set(name, showInfoFromResponse(parsed.value));
            failedUntil.delete(key);
          } catch {
            // Left undescribed: the inferred capabilities stand until the next try.
            failedUntil.set(key, now() + retryAfterMs);
          }
        }),
      );
    }
    deadline.clear();
    return shows;
  };
}
