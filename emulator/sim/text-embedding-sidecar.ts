/**
 * The simulated text-embedding sidecar of a node agent (ARCHITECTURE.md §8.3, herd's fastembed server):
 * `POST /embed {model, input}` → `{embeddings}` (deterministic, L2-normalised, the model's width) and
 * `POST /rerank {model, query, documents, top_n?, return_documents?}` → `{model, results: [{index,
 * relevance_score, document?}], usage: {total_tokens}}`, as the real agent answers (anchor §12): the
 * cross-encoder-like logit is put through the sigmoid on the node, so scores are probabilities in (0, 1),
 * sorted best first, cut to `top_n`, with `document: {text}` when asked, and the usage a word count of
 * every (query, document) pair. Documents may be strings or `{text}` objects.
 */
import type { ServerResponse } from 'node:http';
import { type Fields, fieldsOf, stringField } from './fields';
import { isGone, sendDetail, sendJson } from './http';
import { jsonBody, type SimSidecar, startSidecarServer } from './sidecar';
import type { SimRequest } from './sim-server';
import { embedText, wordsOf } from './vectors';

export interface TextEmbeddingModel {
  readonly name: string;
  /** Vector width; 0 for rerankers. */
  readonly dimensions: number;
  readonly kind: 'embed' | 'rerank';
}

export interface TextEmbeddingSidecarOptions {
  readonly host?: string;
  /** 0 (default) = an ephemeral port. */
  readonly port?: number;
  readonly models?: readonly TextEmbeddingModel[];
  /** Simulated compute time per request, ms (default 2). */
  readonly delayMs?: number;
}

export type TextEmbeddingSidecar = SimSidecar<TextEmbeddingModel>;

export const DEFAULT_TEXT_EMBEDDING_MODELS: readonly TextEmbeddingModel[] = [
  { name: 'ms-marco-minilm-l-6-v2', dimensions: 0, kind: 'rerank' },
  { name: 'bge-reranker-base', dimensions: 0, kind: 'rerank' },
  { name: 'bge-small-en-v1.5', dimensions: 384, kind: 'embed' },
];

const MAX_DOCUMENTS = 1000;
const MAX_DOCUMENT_CHARS = 32_000;

/**
 * A cross-encoder-like logit from word overlap: -5 with nothing shared, up to +5 when the document holds
 * every query word, minus a little for length so concise matches win.
 */
export function rerankLogit(query: string, document: string): number {
  const queryWords = new Set(wordsOf(query));
  const documentWords = wordsOf(document);
  const shared = new Set(documentWords.filter((word) => queryWords.has(word))).size;
  const coverage = queryWords.size === 0 ? 0 : shared / queryWords.size;
  return Math.round((-5 + 10 * coverage - 0.001 * documentWords.length) * 1e6) / 1e6;
}

/** The logistic function the agent applies to each logit (no overflow on either side). */
function sigmoid(logit: number): number {
  if (logit >= 0) return 1 / (1 + Math.exp(-logit));
  const e = Math.exp(logit);
  return e / (1 + e);
}

/** The relevance of a document as the agent answers it: the logit through the sigmoid. */
export function rerankScore(query: string, document: string): number {
  return sigmoid(rerankLogit(query, document));
}

export interface RerankAnswer {
  readonly results: { index: number; relevance_score: number; document?: { text: string } }[];
  readonly usage: { total_tokens: number };
}

/** Results sorted best first (ties keep input order), cut to `topN`, documents when asked; word-count usage. */
export function rerank(
  query: string,
  documents: readonly string[],
  topN?: number,
  withDocuments = false,
): RerankAnswer {
  const scored = documents.map((document, index) => ({ index, relevance_score: rerankScore(query, document) }));
  scored.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const kept = topN === undefined ? scored : scored.slice(0, topN);
  const results = kept.map((result) =>
    withDocuments ? { ...result, document: { text: documents[result.index] ?? '' } } : result,
  );
  const queryWords = query.split(/\s+/).filter((word) => word !== '').length;
  let totalTokens = 0;
  for (const document of documents) totalTokens += queryWords + document.split(/\s+/).filter((w) => w !== '').length;
  return { results, usage: { total_tokens: totalTokens } };
}

type BodyKey = 'model' | 'input' | 'query' | 'documents' | 'top_n' | 'return_documents';
type Body = Fields<BodyKey>;

function pickModel(models: readonly TextEmbeddingModel[], body: Body, kind: TextEmbeddingModel['kind']) {
  const name = stringField(body.model);
  if (name === undefined) return models.find((m) => m.kind === kind);
  return models.find((m) => m.name === name);
}

function inputsOf(input: unknown): string[] | undefined {
  if (typeof input === 'string') return [input];
  return Array.isArray(input) && input.every((item) => typeof item === 'string') ? input : undefined;
}

interface RerankRequest {
  readonly query: string;
  readonly documents: readonly string[];
  readonly topN: number | undefined;
  readonly returnDocuments: boolean;
}

/** A document as the agent reads it: a string, or the `text` of an object. */
function documentText(value: unknown): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? Reflect.get(value, 'text') : value;
}

/** Characters as Python's `len` counts them: code points, so an emoji is one. */
function isDocument(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && [...value].length <= MAX_DOCUMENT_CHARS;
}

/** The checked rerank request, or the problem with it. */
function parseRerank(body: Body): RerankRequest | string {
  const { query, top_n: topN } = body;
  if (typeof query !== 'string' || query.trim() === '') return 'query is required';
  if (!Array.isArray(body.documents) || body.documents.length === 0) return 'documents must be a non-empty list';
  const documents: unknown[] = body.documents.map(documentText);
  if (documents.length > MAX_DOCUMENTS) return `at most ${MAX_DOCUMENTS} documents`;
  if (!documents.every(isDocument))
    return `documents must be non-empty strings of at most ${MAX_DOCUMENT_CHARS} characters`;
  const returnDocuments = body.return_documents === true;
  if (topN === undefined || topN === null) return { query, documents, topN: undefined, returnDocuments };
  const valid = typeof topN === 'number' && Number.isInteger(topN) && topN > 0;
  return valid ? { query, documents, topN, returnDocuments } : 'top_n must be a positive integer';
}

export async function startTextEmbeddingSidecar(
  options: TextEmbeddingSidecarOptions = {},
): Promise<TextEmbeddingSidecar> {
  const models = options.models ?? DEFAULT_TEXT_EMBEDDING_MODELS;
  const delayMs = options.delayMs ?? 2;
  let processing = 0;

  /** Parses the body, holds the request for the compute time, then answers via `answer`. */
  function work(
    kind: TextEmbeddingModel['kind'],
    answer: (body: Body, model: TextEmbeddingModel) => [number, unknown],
  ) {
    return (request: SimRequest, res: ServerResponse): void => {
      const value = jsonBody(request, res);
      if (isGone(res)) return;
      const body = fieldsOf<BodyKey>(value);
      if (body === undefined) {
        sendDetail(res, 400, 'body must be a JSON object');
        return;
      }
      const model = pickModel(models, body, kind);
      if (model === undefined) {
        sendDetail(res, 404, `Unknown model: ${String(body.model)}`);
        return;
      }
      if (model.kind !== kind) {
        sendDetail(res, 400, `Model ${model.name} is ${kind === 'embed' ? 'a reranker' : 'an embedder'}`);
        return;
      }
      processing++;
      setTimeout(() => {
        processing--;
        if (isGone(res)) return;
        const [status, reply] = answer(body, model);
        sendJson(res, status, reply);
      }, delayMs);
    };
  }

  const embed = work('embed', (body, model) => {
    const inputs = inputsOf(body.input);
    if (inputs === undefined) return [400, { detail: 'input must be a string or a list of strings' }];
    const embeddings = inputs.map((text) => embedText(text, model.dimensions, model.name));
    return [200, { model: model.name, embeddings, dimensions: model.dimensions }];
  });
  const rank = work('rerank', (body, model) => {
    const parsed = parseRerank(body);
    if (typeof parsed === 'string') return [400, { detail: parsed }];
    const answer = rerank(parsed.query, parsed.documents, parsed.topN, parsed.returnDocuments);
    return [200, { model: model.name, ...answer }];
  });

  return startSidecarServer({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    models,
    routes: { 'POST /embed': embed, 'POST /rerank': rank },
    busy: () => processing > 0,
  });
}
