/**
 * `POST /v1/messages/count_tokens` (spec §4.3; protocols §6.6; anchor §3.7): `{"input_tokens": n}` for a
 * Messages request without `max_tokens`. The body is validated and translated exactly as `/v1/messages`
 * does it (the same 400s: bad blocks, PDF documents, file sources, non-http image URLs), and `n` is
 * `estimatePromptTokens` of the canonical request — the number the context layers compare with their
 * thresholds and the cap, so a client that sizes its prompt with this endpoint is not surprised by a 413.
 * It counts the prompt as the client sends it, before any clearing: never less than what the node gets.
 *
 * Any model id is counted, on the fleet or not, as Anthropic counts for every model it has: the count is
 * cl100k's whatever the model, so the fleet is not asked, nothing is routed and the table is not read.
 * Image URLs are not fetched: an image costs `IMAGE_TOKENS` whatever it holds, so each URL stands in for
 * itself with an empty placeholder.
 */
import { estimatePromptTokens } from '../../core/context/estimate-prompt-tokens';
import {
  anthropicImageUrls,
  fromAnthropicMessagesRequest,
} from '../../core/protocols/anthropic/from-anthropic-messages-request';
import { type AnthropicCountTokensRequest, parseAnthropicCountTokensRequest } from '../../core/wire/anthropic';
import { readJson, requireModel, requireValid } from '../../services/http/parse-json';
import { sendJson } from '../../services/http/reply';
import type { HttpRequest } from '../../services/http/request';
import type { ResponseSink } from '../../services/http/response-sink';

/** What stands in for an image that is counted, not seen. */
const UNFETCHED_IMAGE = '';

export async function serveAnthropicCountTokens(request: HttpRequest, response: ResponseSink): Promise<void> {
  const raw = readJson(request);
  requireModel(raw);
  const body = requireValid(parseAnthropicCountTokensRequest(raw));
  await sendJson(response, { input_tokens: countAnthropicPromptTokens(body) });
}

export function countAnthropicPromptTokens(body: AnthropicCountTokensRequest): number {
  const images = new Map(anthropicImageUrls(body).map(({ url }) => [url, UNFETCHED_IMAGE]));
  // `max_tokens` only becomes `options.num_predict`, which is not part of the prompt.
  const canonical = fromAnthropicMessagesRequest({ ...body, max_tokens: 1 }, { images });
  return estimatePromptTokens(canonical);
}
