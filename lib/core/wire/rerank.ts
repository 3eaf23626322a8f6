/**
 * Rerank on the wire (spec §4.2 `POST /v1/rerank`, §2 "Rerank result"; ARCHITECTURE.md §8.3 sidecar rerank;
 * protocols §7): the client's request (Jina/Cohere shape) as a loose zod schema, the node sidecar's
 * reply as a minimal one, and the response the router writes as TS types. Limits and empty documents
 * are checked by `lib/core/protocols/rerank/rerank-document-texts`, where the messages can count. Pure.
 */
import { type InferLazy, lazySchema } from './lazy-schema';
import { parseWith, type WireParseResult } from './parse-with';
import * as z from './zod';

const DOCUMENT_SHAPE = 'expected a string or an object with a string `text`';

/** A candidate: a string, or an object carrying its text (Jina/Cohere v1; other keys pass). */
const rerankDocumentSchema = lazySchema(() =>
  z.union([z.string(), z.looseObject({ text: z.string() })], { error: DOCUMENT_SHAPE }),
);

export const rerankRequestSchema = lazySchema(() =>
  z.looseObject({
    /** Absent or null: the default reranker. Empty is a mistake, not a request for the default. */
    model: z.nullish(z.string({ error: 'model must be a string' }).check(z.minLength(1, 'model must not be empty'))),
    query: z
      .string({ error: 'query is required and must be a string' })
      .check(z.refine((query) => query.trim() !== '', 'query must not be empty')),
    documents: z.array(rerankDocumentSchema(), {
      error: 'documents is required: an array of strings or of {text} objects',
    }),
    top_n: z.nullish(
      z
        .number({ error: 'top_n must be a positive integer' })
        .check(z.int('top_n must be a positive integer'), z.positive('top_n must be a positive integer')),
    ),
    return_documents: z.nullish(z.boolean({ error: 'return_documents must be a boolean' })),
    // The router's own fields (ARCHITECTURE.md §9.2), never forwarded.
    fallback_models: z.nullish(z.array(z.string())),
    metadata: z.nullish(z.looseObject({ tags: z.nullish(z.union([z.array(z.string()), z.string()])) })),
    user: z.nullish(z.string()),
  }),
);

export type RerankRequest = InferLazy<typeof rerankRequestSchema>;
export type RerankDocument = InferLazy<typeof rerankDocumentSchema>;

export function parseRerankRequest(body: unknown): WireParseResult<RerankRequest> {
  return parseWith(rerankRequestSchema(), body, 'invalid request');
}

// ---------------------------------------------------------------------------------------------------
// The node's side (ARCHITECTURE.md §8.3): `POST <text-embedding sidecar>/rerank`.

/** What the router sends; fields the router does not handle itself are forwarded after these. */
export interface SidecarRerankRequest {
  readonly model: string;
  readonly query: string;
  readonly documents: readonly string[];
  readonly [field: string]: unknown;
}

const tokenCount = lazySchema(() => z.nullish(z.number().check(z.int(), z.nonnegative())));

/**
 * The sidecar's reply: `results` is all the router needs. Scores are read as probabilities unless
 * `raw_scores: true` says they are logits (TEI's and infinity's name for the switch; see
 * `lib/core/protocols/rerank/relevance-scores`); `usage` when it counted.
 */
export const sidecarRerankReplySchema = lazySchema(() =>
  z.looseObject({
    results: z.array(z.looseObject({ index: z.number().check(z.int()), relevance_score: z.number() })),
    raw_scores: z.nullish(z.boolean()),
    usage: z.nullish(z.looseObject({ prompt_tokens: tokenCount(), total_tokens: tokenCount() })),
  }),
);

export type SidecarRerankReply = InferLazy<typeof sidecarRerankReplySchema>;

export function parseSidecarRerankReply(body: unknown): WireParseResult<SidecarRerankReply> {
  return parseWith(sidecarRerankReplySchema(), body, 'invalid rerank reply');
}

// ---------------------------------------------------------------------------------------------------
// What the router writes (spec §4.2).

export interface RerankResult {
  /** Position in the request's `documents`. */
  readonly index: number;
  /** In 0..1, best first. */
  readonly relevance_score: number;
  /** Only when `return_documents` is true. */
  readonly document?: { readonly text: string };
}

export interface RerankUsage {
  readonly prompt_tokens: number;
  readonly total_tokens: number;
}

export interface RerankResponse {
  readonly model: string;
  readonly results: readonly RerankResult[];
  readonly usage: RerankUsage;
}
