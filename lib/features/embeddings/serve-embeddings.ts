/**
 * The three embedding routes (spec §4.2 `POST /v1/embeddings`, §4.4 `POST /api/embed` and the legacy
 * `POST /api/embeddings`, §7, §8) on one service (`embed-texts`): each reads its body, checks it, and
 * answers in its family's shape with the `X-Fleet-*` headers. Decisions the spec leaves open:
 * - `input` is a string or an array of non-empty strings on `/v1/embeddings` and `/api/embed`; an empty
 *   string, an empty array and OpenAI's token-id arrays are 400s naming the field (`input.2`);
 *   `/api/embed` also takes `prompt` when `input` is absent (spec §4.4: "`input` or `prompt`");
 * - the legacy route takes `prompt` (or, when absent, `input`) as one string and is sent to the node as
 *   `/api/embed` with `input: [prompt]`, so its vector is normalised like `/api/embed`'s. An empty or
 *   missing prompt is a 400 as everywhere else (Ollama would answer `{"embedding": []}`: a vector a
 *   client could store without noticing it is empty);
 * - texts over 2,048 tokens are cut before any node sees them; the reply's `X-Fleet-Truncated-Inputs`
 *   header counts the cut texts (absent when none was cut). With `truncate: false` a text over 2,048
 *   tokens is a 400 naming it (`input.3`) on all three routes, as Ollama refuses an input that does not
 *   fit, and shorter texts go through untouched (issue 20: the spec's "`truncate: false` returns 400"
 *   turned away LangChain, which sends it on every call);
 * - `encoding_format` defaults to `float`; `dimensions` must be a positive integer, is passed to Ollama
 *   nodes, and a reply of another width is a 502 (a sidecar never honours it, so only its native width
 *   can be asked of one).
 */
import { BadRequestError } from '../../core/errors';
import { forwardedEmbedFields } from '../../core/protocols/embeddings/embed-node-request';
import { embeddingInputs } from '../../core/protocols/embeddings/embedding-inputs';
import { toOllamaEmbed, toOllamaLegacyEmbedding } from '../../core/protocols/embeddings/to-ollama-embed';
import { encodingFormatOf, toOpenAIEmbeddings } from '../../core/protocols/embeddings/to-openai-embeddings';
import {
  type OllamaEmbedRequest,
  type OpenAIEmbeddingsRequest,
  parseOllamaEmbedRequest,
  parseOpenAIEmbeddingsRequest,
} from '../../core/wire/embeddings';
import { readJson, requireModel, requireValid } from '../../services/http/parse-json';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';
import { type EmbeddingsDeps, type EmbedRequest, embedTexts } from './embed-texts';

/** The fields every route reads the same way. */
function embedRequest(
  body: OpenAIEmbeddingsRequest | OllamaEmbedRequest,
  texts: readonly string[],
  inputField: EmbedRequest['inputField'],
): EmbedRequest {
  return {
    model: body.model,
    fallbackModels: body.fallback_models ?? [],
    texts,
    inputField,
    ...(body.dimensions !== undefined && body.dimensions !== null ? { dimensions: body.dimensions } : {}),
    ...(body.truncate !== undefined && body.truncate !== null ? { truncate: body.truncate } : {}),
    metadataTags: body.metadata?.tags,
    metadataPriority: body.metadata?.['priority'],
    user: body.user,
    forwarded: forwardedEmbedFields(body),
  };
}

export async function serveOpenAIEmbeddings(
  deps: EmbeddingsDeps,
  request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const raw = readJson(request);
  requireModel(raw);
  const body = requireValid(parseOpenAIEmbeddingsRequest(raw));
  const texts = embeddingInputs(body.input, 'input');
  const encoding = encodingFormatOf(body.encoding_format);
  const inputField = { name: 'input', list: Array.isArray(body.input) };
  const result = await embedTexts(deps, { request, response }, embedRequest(body, texts, inputField));
  const reply = toOpenAIEmbeddings(result.reply.embeddings, {
    model: result.model,
    encoding,
    promptTokens: result.promptTokens,
  });
  await sendJson(response, reply, 200, result.headers);
}

export async function serveOllamaEmbed(
  deps: EmbeddingsDeps,
  request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const raw = readJson(request);
  requireModel(raw);
  const body = requireValid(parseOllamaEmbedRequest(raw));
  const [name, value] =
    body.input === undefined && body.prompt !== undefined ? ['prompt', body.prompt] : ['input', body.input];
  const texts = embeddingInputs(value, name);
  const inputField = { name, list: Array.isArray(value) };
  const result = await embedTexts(deps, { request, response }, embedRequest(body, texts, inputField));
  const reply = toOllamaEmbed(result.reply, {
    model: result.model,
    elapsedMs: result.elapsedMs,
    promptTokens: result.routerTokens,
  });
  await sendJson(response, reply, 200, result.headers);
}

/** The legacy prompt: one non-empty string (see the header), and the field it came from. */
function legacyPrompt(body: OllamaEmbedRequest): { readonly text: string; readonly field: string } {
  const [field, value] =
    body.prompt === undefined && body.input !== undefined ? ['input', body.input] : ['prompt', body.prompt];
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw new BadRequestError(`${field} must be a string (/api/embed embeds several texts at once)`, field);
  }
  return { text: embeddingInputs(value, field)[0] ?? '', field };
}

export async function serveOllamaEmbeddings(
  deps: EmbeddingsDeps,
  request: HttpRequest,
  response: ResponseSink,
): Promise<void> {
  const raw = readJson(request);
  requireModel(raw);
  const body = requireValid(parseOllamaEmbedRequest(raw));
  const prompt = legacyPrompt(body);
  const inputField = { name: prompt.field, list: false };
  const result = await embedTexts(deps, { request, response }, embedRequest(body, [prompt.text], inputField));
  await sendJson(response, toOllamaLegacyEmbedding(result.reply), 200, result.headers);
}
