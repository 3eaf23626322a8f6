/**
 * Layer 1 of the context layers (anchor §3.8): mechanical clearing of old tool results, on the canonical
 * request, so `/v1/messages` and `/v1/responses` share it.
 *
 * - Sticky first: every tool result whose key is in `alreadyCleared` (cleared on an earlier turn, the
 *   caller keeps the set) is cleared again, even under the trigger, so the cleared/intact boundary only
 *   moves forward and the prefix a node has cached stays the same from turn to turn.
 * - Then, if the estimate is still above `triggerTokens`, every other tool result but the newest
 *   `keepRecent` is cleared; their keys come back in `clearedIds` for the caller to remember. Deciding on
 *   the estimate after the sticky pass is what keeps the boundary still once it has moved: the client
 *   resends the full history each turn, and judging that would clear again every turn.
 * - The newest `keepRecent` results are never cleared, not even a remembered key: a client that reuses
 *   ids (`call_0` every turn) must not lose the result it has just been handed.
 * Clearing replaces a result's `content` with `CLEARED_TOOL_RESULT`; the message, its `tool_call_id` and
 * every assistant tool call stay as they are. The request is not changed: a copy comes back, or the same
 * object when nothing is cleared. `triggerTokens: 0` turns the layer off (sticky pass included), as
 * `FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS=0` does. Pure.
 */
import { createHash } from 'node:crypto';
import type { OllamaMessage } from '../wire/ollama';
import { estimateMessageTokens, measurePrompt, type PromptMeasure, type PromptParts } from './estimate-prompt-tokens';

export const CLEARED_TOOL_RESULT = '[tool result cleared — not in window of recent context]';

export interface ClearOldToolResultsOptions {
  /** Prompt tokens (`estimatePromptTokens`) above which older results are cleared; 0 turns the layer off. */
  readonly triggerTokens: number;
  /** How many of the newest tool results are always kept whole. */
  readonly keepRecent: number;
  /** Keys (`toolResultKey`) cleared on earlier turns. */
  readonly alreadyCleared: ReadonlySet<string>;
}

export interface ClearedToolResults<Request extends PromptParts> {
  readonly request: Request;
  /** Keys of the results cleared on this turn for the first time, oldest first. */
  readonly clearedIds: readonly string[];
  /** Results cleared in the returned request: remembered ones cleared again, and `clearedIds`. */
  readonly cleared: number;
  /** Estimated prompt tokens of the request as it came, and as it goes on. */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** `estimateMessageTokens` of each message of the returned request. */
  readonly messageTokens: readonly number[];
}

/**
 * What a tool result is remembered by: its `tool_call_id` (Anthropic and Responses requests always have
 * one). A result without one (an Ollama-native client) is keyed by its position in `messages` and a hash
 * of its content: clients resend the history unchanged and append to it, so both stay the same from turn
 * to turn, and a history the client has rewritten (its own compaction) no longer matches, so nothing else
 * is cleared by mistake.
 */
export function toolResultKey(message: OllamaMessage, index: number): string {
  if (message.tool_call_id !== undefined && message.tool_call_id !== '') return message.tool_call_id;
  const digest = createHash('sha256').update(message.content).digest('hex').slice(0, 16);
  return `position:${index}:${digest}`;
}

/** `measure` is the request's `measurePrompt`, when the caller has it already (it is not counted again). */
export function clearOldToolResults<Request extends PromptParts>(
  request: Request,
  options: ClearOldToolResultsOptions,
  measure: PromptMeasure = measurePrompt(request),
): ClearedToolResults<Request> {
  const { messages } = request;
  // One tokenization per message: the estimate is updated as results are cleared, never recounted.
  const counts = [...measure.messageTokens];
  const tokensBefore = measure.total;
  const unchanged = { request, clearedIds: [], cleared: 0, tokensBefore, tokensAfter: tokensBefore };
  if (options.triggerTokens === 0) return { ...unchanged, messageTokens: counts };

  const results = messages.flatMap((message, index) => (message.role === 'tool' ? [{ index, message }] : []));
  const older = results
    .slice(0, Math.max(0, results.length - options.keepRecent))
    .map(({ index, message }) => ({ index, message, key: toolResultKey(message, index) }));
  const cleared = new Map<number, OllamaMessage>();
  let tokens = tokensBefore;
  const clear = (index: number, message: OllamaMessage): void => {
    const replacement: OllamaMessage = { ...message, content: CLEARED_TOOL_RESULT };
    cleared.set(index, replacement);
    const replacementTokens = estimateMessageTokens(replacement);
    tokens += replacementTokens - (counts[index] ?? 0);
    counts[index] = replacementTokens;
  };

  for (const { index, message, key } of older) {
    if (options.alreadyCleared.has(key)) clear(index, message);
  }
  const clearedIds: string[] = [];
  if (tokens > options.triggerTokens) {
    for (const { index, message, key } of older) {
      if (cleared.has(index)) continue;
      clear(index, message);
      clearedIds.push(key);
    }
  }

  if (cleared.size === 0) return { ...unchanged, messageTokens: counts };
  const clearedMessages = messages.map((message, index) => cleared.get(index) ?? message);
  return {
    request: { ...request, messages: clearedMessages },
    clearedIds,
    cleared: cleared.size,
    tokensBefore,
    tokensAfter: tokens,
    messageTokens: counts,
  };
}
