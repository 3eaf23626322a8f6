/**
 * The one embedding service behind `/v1/embeddings`, `/api/embed` and `/api/embeddings` (spec §4.2,
 * §4.4, §7, §8): cut every text to 2,048 tokens (under `truncate: false`, refuse the first text that
 * does not fit, as Ollama does, with a 400 naming it, and pass shorter ones on untouched, `truncate:
 * false` included, for an Ollama node to honour against its own context), route an `embedding` request
 * (scoring, queues, retries, `fallback_models`, 404/503 as for chat) and send the texts where the chosen
 * placement lives — the node's Ollama (`POST /api/embed`) or its agent's text-embedding sidecar
 * (`POST /embed`, ARCHITECTURE.md §8.3) — then check the vectors (502 on a wrong count, a shape the router cannot
 * vouch for, or an ignored `dimensions`). The routed exchange writes the trace (style `embeddings`) and the
 * usage, with the node's token count when it sent one and the router's otherwise.
 */

import { BadRequestError, UpstreamError } from '../../core/errors';
import { merged } from '../../core/merged';
import { ollamaEmbedNodeRequest, sidecarEmbedRequest } from '../../core/protocols/embeddings/embed-node-request';
import { type NodeEmbeddings, readNodeEmbeddings } from '../../core/protocols/embeddings/read-node-embeddings';
import {
  MAX_EMBEDDING_INPUT_TOKENS,
  type TruncatedInputs,
  truncateInputs,
} from '../../core/protocols/embeddings/truncate-inputs';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import { mergeTags } from '../../core/scoring/tags';
import {
  type ExchangeDeps,
  exchangeWhole,
  type NodeAnswer,
  nodeRefusal,
} from '../../services/dispatch/routed-exchange';
import type { NodeAttempt, NodeReply } from '../../services/dispatch/transport';
import type { HttpRequest } from '../../services/http/request';
import { requestClaim } from '../../services/http/request-claim';
import type { ResponseSink } from '../../services/http/response-sink';
import { openNodeStream } from '../../services/node-client/node-stream';
import type { FleetConfig } from '../../services/platform/config';

/** What the embedding routes use from the instance: the routed exchange's dispatcher and traces. */
export interface EmbeddingsDeps extends ExchangeDeps {
  readonly config: Pick<FleetConfig, 'apiKeys' | 'sharing'>;
}

/** How many inputs the router cut to 2,048 tokens; only sent when it cut some. */
export const TRUNCATED_INPUTS_HEADER = 'x-fleet-truncated-inputs';

/** What every embedding route reads from its body before asking the fleet. */
export interface EmbedRequest {
  readonly model: string;
  readonly fallbackModels: readonly string[];
  /** The texts as the client sent them, already checked (non-empty strings). */
  readonly texts: readonly string[];
  /** Where the texts came from, to name one in a 400: `input` (a list: `input.3`), `prompt`. */
  readonly inputField: { readonly name: string; readonly list: boolean };
  readonly dimensions?: number;
  readonly truncate?: boolean;
  /** `metadata.tags` and `user`, unvalidated: tags never fail a request. */
  readonly metadataTags?: unknown;
  /** The body's `metadata.priority`, unvalidated (lib/services/http/request-claim). */
  readonly metadataPriority?: unknown;
  readonly user?: unknown;
  /** The client's fields an Ollama node may understand (see `forwardedEmbedFields`). */
  readonly forwarded: Readonly<Record<string, unknown>>;
}

export interface EmbedResult {
  readonly reply: NodeEmbeddings;
  /** The model that served, as its node names it. */
  readonly model: string;
  /** The node's count of embedded tokens when it sent one, else the router's. */
  readonly promptTokens: number;
  /** The router's count of the (truncated) texts. */
  readonly routerTokens: number;
  /** `X-Fleet-*` headers, plus `X-Fleet-Truncated-Inputs` when texts were cut. */
  readonly headers: Readonly<Record<string, string>>;
  readonly elapsedMs: number;
}

/**
 * `truncate: false` is Ollama's "fail rather than cut" (LangChain's `OllamaEmbeddings` sends it on every
 * call): like Ollama, only an input that does not fit is refused, with Ollama's words and the field named.
 */
function refuseOverLimit(embed: EmbedRequest, cut: TruncatedInputs): void {
  if (embed.truncate !== false || cut.firstCut === undefined) return;
  const { name, list } = embed.inputField;
  const field = list ? `${name}.${cut.firstCut}` : name;
  throw new BadRequestError(
    `the input length exceeds the context length: ${field} is over ${MAX_EMBEDDING_INPUT_TOKENS} tokens and truncate is false (chunk it, or leave truncate out to have it cut)`,
    field,
  );
}

/** The POST that carries the texts to where the placement lives. */
async function sendTexts(
  attempt: NodeAttempt,
  request: EmbedRequest,
  texts: readonly string[],
  response: ResponseSink,
  traceparent: string | undefined,
): Promise<NodeReply> {
  const signal = { signal: response.clientGone, traceparent };
  if (attempt.placement.backend === 'ollama') {
    return openNodeStream(
      attempt.node.url,
      '/api/embed',
      ollamaEmbedNodeRequest(request.forwarded, attempt.model, texts),
      signal,
    );
  }
  const sidecar = attempt.node.sidecars.textEmbedding;
  if (attempt.placement.backend !== 'text-embedding' || sidecar === undefined) {
    throw new UpstreamError(`node ${attempt.node.id} has no text-embedding sidecar for ${attempt.model}`);
  }
  return openNodeStream(sidecar.url, '/embed', sidecarEmbedRequest(attempt.model, texts), signal);
}

export async function embedTexts(
  deps: EmbeddingsDeps,
  http: { readonly request: HttpRequest; readonly response: ResponseSink },
  embed: EmbedRequest,
): Promise<EmbedResult> {
  const cut = truncateInputs(embed.texts);
  refuseOverLimit(embed, cut);
  const { request, response } = http;
  const interpret = (answer: NodeAnswer) => {
    if (answer.status >= 400) throw nodeRefusal(answer);
    const expected = {
      count: cut.texts.length,
      ...(embed.dimensions !== undefined ? { dimensions: embed.dimensions } : {}),
    };
    const reply = readNodeEmbeddings(answer.body.toString('utf8'), expected);
    const promptTokens = reply.promptEvalCount ?? cut.tokens;
    const loaded = reply.loadDuration === undefined ? {} : { loadMs: Math.round(reply.loadDuration / 1e6) };
    return { value: { reply, promptTokens }, promptTokens, completionTokens: 0, ...loaded };
  };
  const tags = mergeTags({
    metadataTags: embed.metadataTags,
    headerValue: request.header('x-service-tags'),
    user: embed.user,
  });
  const routing: RoutingRequest = {
    model: embed.model,
    fallbackModels: embed.fallbackModels,
    kind: 'embedding',
    needsVision: false,
    promptTokens: cut.longest,
    claim: requestClaim(request, { tags, metadataPriority: embed.metadataPriority }, deps.config),
  };
  const result = await exchangeWhole(
    deps,
    {
      routing,
      send: (attempt, _signal, traceparent) => sendTexts(attempt, embed, cut.texts, response, traceparent),
      signal: response.clientGone,
      traced: {
        request,
        style: 'embeddings',
        routing,
        tags,
      },
    },
    interpret,
  );
  const headers =
    cut.truncated > 0
      ? merged<Record<string, string>>(result.headers, { [TRUNCATED_INPUTS_HEADER]: String(cut.truncated) })
      : result.headers;
  return {
    reply: result.value.reply,
    model: result.decision.servedModel,
    promptTokens: result.value.promptTokens,
    routerTokens: cut.tokens,
    headers,
    elapsedMs: result.elapsedMs,
  };
}
