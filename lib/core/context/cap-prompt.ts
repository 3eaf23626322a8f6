/**
 * Layer 3 of the context layers (anchor §3.8): the pre-inference cap. A prompt still over the cap after
 * clearing and summarising is refused with 413 before any node is asked, never retried silently.
 *
 * The message opens with the words of the Anthropic API's own context error ("prompt is too long: N
 * tokens > M maximum"), which agent clients such as Claude Code recognise and answer by compacting, then
 * says where the cap comes from. The code is `prompt_too_large`; the status picks each family's error
 * type (`lib/core/wire/error-body.ts`: Anthropic `request_too_large`, which the SDKs raise as their 413 class;
 * OpenAI `invalid_request_error`). Pure.
 */
import { RouterError } from '../errors';

export const PROMPT_TOO_LARGE = 'prompt_too_large';

/** Throws when `tokens` exceeds `capTokens`; a cap of 0 turns the check off (`FLEET_MAX_PROMPT_TOKENS=0`). */
export function checkPromptCap(tokens: number, capTokens: number): void {
  if (capTokens === 0 || tokens <= capTokens) return;
  throw new RouterError(
    413,
    `prompt is too long: ${tokens} tokens > ${capTokens} maximum. The prompt is ${tokens} tokens after ` +
      `server-side context management, which exceeds the ${capTokens}-token cap of this router ` +
      '(FLEET_MAX_PROMPT_TOKENS). Run /compact or start a new conversation.',
    { code: PROMPT_TOO_LARGE, retryable: false },
  );
}
