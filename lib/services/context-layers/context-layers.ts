/**
 * The three context layers (anchor §3.8; issue: messages item 3), applied to the canonical request of
 * `/v1/messages` and `/v1/responses` after translation and before routing:
 * 1. clearing old tool results (`clearOldToolResults`), sticky across turns (`sticky-cleared-ids.ts`);
 * 2. summarising the largest remaining ones with a fleet model (`compact-tool-results.ts`), only with
 *    `FLEET_CONTEXT_COMPACTION` on and the prompt over its budget; any failure fails open;
 * 3. the cap (`checkPromptCap`): 413 when the prompt is still over `FLEET_MAX_PROMPT_TOKENS`.
 *
 * Ordinary requests pay nothing (ARCHITECTURE.md §3.5): `promptTokenBound` (UTF-8 bytes, no tokenizer) shows
 * when no layer can act, and then the prompt is not tokenized, the encoder not even loaded, and the table
 * not read. Otherwise the prompt is tokenized once; the table is read for the conversation's cleared ids
 * only when that estimate is above the trigger. What is counted is `estimatePromptTokens`, the number
 * `/v1/messages/count_tokens` answers, so a client that sizes its prompt with it does not meet the 413.
 * Cleared ids are remembered by the conversation as the client names it (`chatConversationKey` with the
 * client's model id), so the cut stays where it is when a turn is served by another model.
 */

import { checkPromptCap } from '../../core/context/cap-prompt';
import { type ClearedToolResults, clearOldToolResults } from '../../core/context/clear-old-tool-results';
import { measurePrompt } from '../../core/context/estimate-prompt-tokens';
import { promptTokenBound } from '../../core/context/prompt-token-bound';
import { chatConversationKey } from '../../core/scoring/chat-routing-request';
import type { OllamaChatRequest } from '../../core/wire/ollama';
import type { ContextSettings } from '../platform/config';
import { type CompactToolResultsDeps, compactToolResults } from './compact-tool-results';
import type { StickyClearedIds } from './sticky-cleared-ids';

export interface ContextLayersInput {
  /** The canonical request; `model` is the client's id. */
  readonly request: OllamaChatRequest;
  /** The request's merged tags: a `session:` tag names the conversation. */
  readonly tags: readonly string[];
  /** The client's: a client that leaves stops the summarising. */
  readonly signal: AbortSignal;
}

export interface ContextLayersResult {
  readonly request: OllamaChatRequest;
  /** `estimatePromptTokens` of `request`, when the prompt was measured (not when it was plainly small). */
  readonly promptTokens?: number;
  /** Tool results cleared in `request` by Layer 1 (remembered ones included). */
  readonly cleared: number;
  /** Tool results replaced by a summary by Layer 2. */
  readonly summarised: number;
}

export type ApplyContextLayers = (input: ContextLayersInput) => Promise<ContextLayersResult>;

export interface ContextLayersOptions {
  readonly settings: ContextSettings;
  readonly clearedIds: StickyClearedIds;
  /** Layer 2's cache and model call; used only when `settings.compaction` is on. */
  readonly compaction: CompactToolResultsDeps;
  readonly log?: (line: string) => void;
}

const NONE: ReadonlySet<string> = new Set();

/** The smallest threshold some layer acts above, or undefined when every layer is off. */
function lowestThreshold(settings: ContextSettings): number | undefined {
  const thresholds = [
    settings.clearTriggerTokens,
    settings.maxPromptTokens,
    settings.compaction ? settings.compactionBudgetTokens : 0,
  ].filter((threshold) => threshold > 0);
  return thresholds.length === 0 ? undefined : Math.min(...thresholds);
}

export function createContextLayers(options: ContextLayersOptions): ApplyContextLayers {
  const { settings, clearedIds } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  const threshold = lowestThreshold(settings);
  const budget = settings.compaction ? settings.compactionBudgetTokens : 0;

  /** Layer 2, failing open: on any failure the request goes on as Layer 1 left it. */
  const compact = async (layer1: ClearedToolResults<OllamaChatRequest>, signal: AbortSignal) => {
    const unchanged = { request: layer1.request, tokens: layer1.tokensAfter, summarised: 0 };
    if (budget === 0 || layer1.tokensAfter <= budget) return unchanged;
    try {
      return await compactToolResults(
        layer1.request,
        { messageTokens: layer1.messageTokens, total: layer1.tokensAfter },
        { budgetTokens: budget, keepRecent: settings.clearKeepRecent },
        options.compaction,
        signal,
      );
    } catch (error) {
      log(`context: summarising tool results failed, going on without (fail open): ${String(error)}`);
      return unchanged;
    }
  };

  return async ({ request, tags, signal }) => {
    if (threshold === undefined || promptTokenBound(request) <= threshold) {
      return { request, cleared: 0, summarised: 0 };
    }
    const measure = measurePrompt(request);
    const trigger = settings.clearTriggerTokens;
    const key =
      trigger > 0 && measure.total > trigger ? chatConversationKey(request.model, tags, request.messages) : undefined;
    const alreadyCleared = key === undefined ? NONE : await clearedIds.load(key);
    const layer1 = clearOldToolResults(
      request,
      { triggerTokens: trigger, keepRecent: settings.clearKeepRecent, alreadyCleared },
      measure,
    );
    if (key !== undefined) clearedIds.remember(key, layer1.clearedIds);
    const layer2 = await compact(layer1, signal);
    checkPromptCap(layer2.tokens, settings.maxPromptTokens);
    return {
      request: layer2.request,
      promptTokens: layer2.tokens,
      cleared: layer1.cleared,
      summarised: layer2.summarised,
    };
  };
}
