/**
 * An upper bound of `estimatePromptTokens` that tokenizes nothing (anchor §3.8; ARCHITECTURE.md §3.5: the hot
 * path pays for the context layers only when one of them can act). cl100k is a byte-level BPE: every
 * token stands for at least one byte of UTF-8, and `countTokens` sums the counts of segments of the text
 * (`lib/core/tokens/token-segments.ts`), each of which obeys the same rule, so a text never has more tokens
 * than UTF-8 bytes. The bound adds up the bytes of exactly what the estimate counts, and the same
 * `IMAGE_TOKENS` per image. A prompt whose bound is at or below every threshold cannot trigger a layer,
 * so it is never tokenized and the table is never read for it. Pure.
 */
import { IMAGE_TOKENS, type PromptParts } from './estimate-prompt-tokens';

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

export function promptTokenBound(request: PromptParts): number {
  let bound = 0;
  for (const tool of request.tools ?? []) bound += jsonBytes(tool);
  for (const message of request.messages) {
    bound += Buffer.byteLength(message.content) + (message.images?.length ?? 0) * IMAGE_TOKENS;
    for (const call of message.tool_calls ?? []) {
      bound += Buffer.byteLength(call.function.name) + jsonBytes(call.function.arguments);
    }
  }
  return bound;
}
