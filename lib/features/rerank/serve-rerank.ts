/**
 * `POST /v1/rerank` (spec §4.2, §7, §8; anchor §4.2): validate (400 naming the field, limits of §8),
 * route to a node whose text-embedding sidecar has the reranker (default `ms-marco-minilm-l-6-v2`;
 * `fallback_models` honoured; 404 when no node has it, 503 when none can take it), ask it to score
 * every document, and answer `{model, results, usage}` best first with the serving node in
 * `X-Fleet-Node`. Traced with style `rerank`, like chat.
 */

import { rerankDocumentTexts } from '../../core/protocols/rerank/rerank-document-texts';
import type { RoutingRequest } from '../../core/scoring/routing-request';
import { mergeTags } from '../../core/scoring/tags';
import { parseRerankRequest } from '../../core/wire/rerank';
import { type ExchangeDeps, exchangeWhole } from '../../services/dispatch/routed-exchange';
import { readJson, requireValid } from '../../services/http/parse-json';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import { requestClaim } from '../../services/http/request-claim';
import type { ResponseSink } from '../../services/http/response-sink';
import type { FleetConfig } from '../../services/platform/config';
import { interpretRerankReply } from './interpret-rerank-reply';
import { sendRerank } from './send-rerank';

/** The reranker when the request names none (spec §4.2; about 80 MB). */
export const DEFAULT_RERANK_MODEL = 'ms-marco-minilm-l-6-v2';

/** What the rerank route uses from the instance: the routed exchange's dispatcher and traces. */
export interface RerankDeps extends ExchangeDeps {
  readonly config: Pick<FleetConfig, 'apiKeys' | 'sharing'>;
}

export async function serveRerank(deps: RerankDeps, request: HttpRequest, response: ResponseSink): Promise<void> {
  const body = requireValid(parseRerankRequest(readJson(request)));
  const texts = rerankDocumentTexts(body.documents);
  const tags = mergeTags({
    metadataTags: body.metadata?.tags,
    headerValue: request.header('x-service-tags'),
    user: body.user,
  });
  const asked = {
    query: body.query,
    texts,
    topN: body.top_n,
    returnDocuments: body.return_documents === true,
  };
  const routing: RoutingRequest = {
    model: body.model ?? DEFAULT_RERANK_MODEL,
    fallbackModels: body.fallback_models ?? [],
    kind: 'rerank',
    needsVision: false,
    claim: requestClaim(request, { tags, metadataPriority: body.metadata?.['priority'] }, deps.config),
  };
  const result = await exchangeWhole(
    deps,
    {
      routing,
      send: sendRerank(body, texts),
      signal: response.clientGone,
      traced: { request, style: 'rerank', routing, tags },
    },
    (answer) => interpretRerankReply(answer, asked),
  );
  await sendJson(response, result.value, 200, result.headers);
}
