/**
 * `POST /api/pull` on the wire (spec §4.4, §2 "Pull progress record"; protocols §2.10): what clients
 * send — `name` or its alias `model`, `stream`, the router's own `node_id`, and whatever else Ollama
 * understands (`insecure`), kept loose so it is forwarded — and the one progress line a node streams
 * back, minimal and `nullish` so a node adding fields never breaks the relay. Pure.
 */
import { type InferLazy, lazySchema } from './lazy-schema';
import { parseWith, type WireParseResult } from './parse-with';
import * as z from './zod';

/** Lazy (built on first parse): the route passes it to `readJsonBody` as a value. */
export const pullRequestSchema = z.lazy(() =>
  z.looseObject({
    name: z.nullish(z.string()),
    model: z.nullish(z.string()),
    stream: z.nullish(z.boolean()),
    node_id: z.nullish(z.string()),
    insecure: z.nullish(z.boolean()),
  }),
);

export type PullRequest = z.infer<typeof pullRequestSchema>;

/**
 * One NDJSON line of a node's pull stream: `{"status": ...}` with optional `digest`, `total` and
 * `completed`, or `{"error": ...}`. `error` is whatever the node put there (Ollama: a string).
 */
const pullProgressLineSchema = lazySchema(() =>
  z.looseObject({
    status: z.nullish(z.string()),
    digest: z.nullish(z.string()),
    total: z.nullish(z.number()),
    completed: z.nullish(z.number()),
    error: z.optional(z.unknown()),
  }),
);

export type PullProgressLine = InferLazy<typeof pullProgressLineSchema>;

export function parsePullProgressLine(value: unknown): WireParseResult<PullProgressLine> {
  return parseWith(pullProgressLineSchema(), value, 'invalid pull progress line');
}
