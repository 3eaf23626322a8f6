/**
 * The prompt cache of one loaded model, as Ollama's runner keeps it (`runner/ollamarunner/cache.go`): one
 * slot per parallel request, each remembering the text it last processed. A request takes the free slot
 * sharing the longest prefix with its prompt (`findLongestCacheSlot`; ties go to the first free slot) and
 * evaluates only the rest — at least one token, so that sampling can start. With `OLLAMA_MULTIUSER_CACHE`
 * set, the runner picks instead with `findBestCacheSlot`: a free slot whose whole text starts the prompt
 * (a conversation coming back), else the least recently used free slot, into which the longest prefix any
 * slot holds is copied — so one user's new conversation does not overwrite another's cached turns.
 *
 * Tokens are counted as the rest of the simulator counts them: a prompt is ⌈chars / 4⌉ tokens and a cached
 * prefix ⌊chars / 4⌋, so a prefix never counts more tokens than the prompt it belongs to.
 */
import { countPromptTokens } from '../text';

export interface CacheSlot {
  /** What the slot last processed: a rendered prompt, then that prompt plus the answer. */
  text: string;
  inUse: boolean;
  /** When a request last took the slot (the scheduler's clock); −∞ for a slot never used. */
  lastUsed: number;
}

export function createSlots(count: number): CacheSlot[] {
  return Array.from({ length: Math.max(1, count) }, () => ({
    text: '',
    inUse: false,
    lastUsed: Number.NEGATIVE_INFINITY,
  }));
}

export function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

export interface SlotChoice {
  readonly index: number;
  /** Characters of the prompt the slot already holds. */
  readonly prefixChars: number;
}

/** The free slot with the longest common prefix (the first on a tie), or undefined when all are in use. */
export function findLongestCacheSlot(slots: readonly CacheSlot[], prompt: string): SlotChoice | undefined {
  let best: SlotChoice | undefined;
  slots.forEach((slot, index) => {
    if (slot.inUse) return;
    const prefixChars = commonPrefixLength(slot.text, prompt);
    if (best === undefined || prefixChars > best.prefixChars) best = { index, prefixChars };
  });
  return best;
}

/**
 * `OLLAMA_MULTIUSER_CACHE`'s choice: the free slot whose whole text starts the prompt; else the free slot
 * used longest ago, which gets a copy of the longest prefix any slot holds (free or not); undefined when
 * every slot is in use.
 */
export function findBestCacheSlot(slots: readonly CacheSlot[], prompt: string): SlotChoice | undefined {
  let longest: { index: number; prefixChars: number } | undefined;
  let oldest: number | undefined;
  slots.forEach((slot, index) => {
    const prefixChars = commonPrefixLength(slot.text, prompt);
    if (longest === undefined || prefixChars > longest.prefixChars) longest = { index, prefixChars };
    if (!slot.inUse && (oldest === undefined || slot.lastUsed < (slots[oldest]?.lastUsed ?? 0))) oldest = index;
  });
  if (longest === undefined) return undefined;
  const holder = slots[longest.index];
  if (holder !== undefined && !holder.inUse && longest.prefixChars === holder.text.length) return longest;
  if (oldest === undefined) return undefined;
  return { index: oldest, prefixChars: longest.prefixChars };
}

export interface PromptAccounting {
  /** Tokens of the prompt, cut to the context the model runs with (as Ollama truncates, silently). */
  readonly promptTokens: number;
  /** Tokens served from the slot's cache. */
  readonly cachedTokens: number;
  /** Tokens evaluated for this request: Ollama's `prompt_eval_count`. */
  readonly evaluatedTokens: number;
}

export function accountPrompt(prompt: string, prefixChars: number, context: number): PromptAccounting {
  const promptTokens = Math.min(countPromptTokens(prompt), context);
  const cachedTokens = Math.max(0, Math.min(Math.floor(prefixChars / 4), promptTokens - 1));
  return { promptTokens, cachedTokens, evaluatedTokens: promptTokens - cachedTokens };
}
