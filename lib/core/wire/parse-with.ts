/**
 * Validates a payload with a zod schema and returns a result naming the first bad field as a dotted
 * path (`memory.total_gb`, `models.0.name`), or `body` when the payload itself is the problem. Used for
 * everything that comes in: client requests, heartbeats, node replies.
 */
import type * as z from './zod';

export type WireParseResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly field: string; readonly message: string };

export function parseWith<T>(
  schema: z.ZodMiniType<T>,
  body: unknown,
  fallbackMessage = 'invalid payload',
): WireParseResult<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  const path = issue === undefined ? [] : issue.path.map(String);
  return { ok: false, field: path.length === 0 ? 'body' : path.join('.'), message: issue?.message ?? fallbackMessage };
}
