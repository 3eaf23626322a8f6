/**
 * The refusal of context protection (issue 20 item 10): a prompt no model tried can hold — its estimate
 * is over `REFUSAL_MARGIN` times the largest maximum among them (./context-window) — is answered 400
 * before any node is asked, instead of being cut silently by the node. Each family gets its own context
 * error (lib/core/wire/error-body.ts): OpenAI and Responses `invalid_request_error` with code
 * `context_length_exceeded`, Anthropic `invalid_request_error` whose message opens with the API's own
 * words "prompt is too long: N tokens > M maximum" (Claude Code compacts on them), Ollama `{"error"}`.
 * Pure.
 */
import { RouterError } from '../errors';

export const CONTEXT_LENGTH_EXCEEDED = 'context_length_exceeded';

export function contextLengthError(promptTokens: number, maxContext: number, models: readonly string[]): RouterError {
  const named = models.map((model) => `'${model}'`).join(', ');
  return new RouterError(
    400,
    `prompt is too long: ${promptTokens} tokens > ${maxContext} maximum. The prompt (estimated) is far ` +
      `longer than the context of model ${named}, so no node can hold it; shorten or compact the conversation.`,
    { code: CONTEXT_LENGTH_EXCEEDED, retryable: false, param: 'messages' },
  );
}
