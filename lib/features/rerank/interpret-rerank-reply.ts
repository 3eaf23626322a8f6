/**
 * What the router makes of a node's whole rerank reply (spec §4.2, §7): a refusal becomes the client's
 * error with the node's status; a 2xx must be JSON of the sidecar shape scoring every document once
 * (else 502); the scores are ordered and kept as the probabilities they are, or squashed into 0..1 when
 * the node sent logits (`rank-node-results`, `relevance-scores`),
 * cut to `top_n`, and `usage` counted when the node did not count. The tokens go to the trace as prompt
 * tokens; nothing is generated.
 */

import { UpstreamError } from '../../core/errors';
import { rankNodeResults } from '../../core/protocols/rerank/rank-node-results';
import { countRerankTokens, rerankUsage } from '../../core/protocols/rerank/rerank-usage';
import { toRerankResponse } from '../../core/protocols/rerank/to-rerank-response';
import { parseJson } from '../../core/wire/json';
import { parseSidecarRerankReply, type RerankResponse } from '../../core/wire/rerank';
import { type NodeAnswer, nodeRefusal, type RoutedValue } from '../../services/dispatch/routed-exchange';

export interface RerankAsked {
  readonly query: string;
  /** The documents' texts as sent, by original index. */
  readonly texts: readonly string[];
  readonly topN: number | null | undefined;
  readonly returnDocuments: boolean;
}

export function interpretRerankReply(
  answer: Pick<NodeAnswer, 'status' | 'body' | 'attempt'>,
  asked: RerankAsked,
): RoutedValue<RerankResponse> {
  if (answer.status >= 300) throw nodeRefusal(answer);
  const json = parseJson(answer.body.toString('utf8'));
  if (!json.ok) throw new UpstreamError(`the node's rerank reply is not JSON: ${json.error}`, answer.status);
  const reply = parseSidecarRerankReply(json.value);
  if (!reply.ok) {
    throw new UpstreamError(`the node's rerank reply is unusable: ${reply.field}: ${reply.message}`, answer.status);
  }
  const ranked = rankNodeResults(reply.value.results, asked.texts.length, reply.value.raw_scores);
  const usage = rerankUsage(reply.value.usage, () => countRerankTokens(asked.query, asked.texts));
  const value = toRerankResponse({
    model: answer.attempt.model,
    ranked,
    texts: asked.texts,
    topN: asked.topN,
    returnDocuments: asked.returnDocuments,
    usage,
  });
  return { value, promptTokens: usage.prompt_tokens, completionTokens: 0 };
}
