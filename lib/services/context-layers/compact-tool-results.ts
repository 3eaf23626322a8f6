/**
 * Layer 2 of the context layers (anchor §3.8): summarises the largest old tool results with a fleet
 * model so the prompt comes down towards the compaction budget. The choice and the words are pure
 * (`lib/core/context/select-compaction-candidates.ts`, `lib/core/context/summarised-tool-result.ts`); this module
 * looks each chosen result up in the summary cache, asks the model for the ones it lacks (a few at a
 * time, all within one deadline), caches what comes back and swaps the results for their summaries.
 * It throws on any failure — a model call that fails or times out, an empty answer — and changes
 * nothing then: the caller fails open with the Layer-1 request. Summaries made before the failure are
 * cached all the same, so the next turn has less to do.
 */
import { estimateMessageTokens } from '../../core/context/estimate-prompt-tokens';
import {
  type SelectCompactionOptions,
  selectCompactionCandidates,
} from '../../core/context/select-compaction-candidates';
import { summarisedToolResult, summaryCacheKey } from '../../core/context/summarised-tool-result';
import { createDeadline } from '../../core/stream/deadline';
import type { OllamaChatRequest, OllamaMessage } from '../../core/wire/ollama';
import type { SummaryCache } from './summary-cache';

/** Asks a model to summarise one tool result; resolves with its answer as it came. */
export type Summarise = (content: string, signal: AbortSignal) => Promise<string>;

export interface CompactToolResultsDeps {
  readonly summaries: SummaryCache;
  readonly summarise: Summarise;
  /** The whole layer's deadline, cache look-ups included. Default 60 s. */
  readonly timeoutMs?: number;
  /** Model calls at once. Default 2. */
  readonly concurrency?: number;
}

export interface CompactedRequest {
  readonly request: OllamaChatRequest;
  /** The estimate after the swap. */
  readonly tokens: number;
  /** Tool results replaced by a summary. */
  readonly summarised: number;
}

interface Chosen {
  readonly index: number;
  readonly tokens: number;
  readonly cacheKey: string;
  replacement?: string;
}

export async function compactToolResults(
  request: OllamaChatRequest,
  measure: { readonly messageTokens: readonly number[]; readonly total: number },
  options: SelectCompactionOptions,
  deps: CompactToolResultsDeps,
  signal: AbortSignal,
): Promise<CompactedRequest> {
  const candidates = selectCompactionCandidates(request.messages, measure.messageTokens, measure.total, options);
  if (candidates.length === 0) return { request, tokens: measure.total, summarised: 0 };
  // Our own timer (../stream/deadline): an `AbortSignal.timeout` inside `any` may be collected unfired.
  const limit = createDeadline(deps.timeoutMs ?? 60_000, signal);
  const deadline = limit.signal;
  const chosen: Chosen[] = candidates.map((candidate) => ({
    ...candidate,
    cacheKey: summaryCacheKey(request.messages[candidate.index]?.content ?? ''),
  }));
  try {
    await Promise.race([summariseAll(request.messages, chosen, deps, deadline), rejectOnAbort(deadline)]);
  } finally {
    limit.clear();
    limit.abort(); // whatever is still running is of no use any more
  }
  return swap(request, measure, chosen);
}

async function summariseAll(
  messages: readonly OllamaMessage[],
  chosen: Chosen[],
  deps: CompactToolResultsDeps,
  signal: AbortSignal,
): Promise<void> {
  await Promise.all(
    chosen.map(async (item) => {
      const cached = await deps.summaries.get(item.cacheKey);
      if (cached !== undefined) item.replacement = cached;
    }),
  );
  const missing = chosen.filter((item) => item.replacement === undefined);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let item = missing[next++]; item !== undefined; item = missing[next++]) {
      signal.throwIfAborted();
      const content = messages[item.index]?.content ?? '';
      const replacement = summarisedToolResult(await deps.summarise(content, signal), item.tokens);
      if (replacement === undefined) throw new Error('the model answered with an empty summary');
      deps.summaries.put(item.cacheKey, replacement);
      item.replacement = replacement;
    }
  };
  const workers = Math.min(deps.concurrency ?? 2, missing.length);
  await Promise.all(Array.from({ length: workers }, worker));
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = () => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

function swap(
  request: OllamaChatRequest,
  measure: { readonly messageTokens: readonly number[]; readonly total: number },
  chosen: readonly Chosen[],
): CompactedRequest {
  const replaced = new Map<number, OllamaMessage>();
  let tokens = measure.total;
  for (const { index, replacement } of chosen) {
    const message = request.messages[index];
    if (message === undefined || replacement === undefined) continue;
    const summarised: OllamaMessage = { ...message, content: replacement };
    replaced.set(index, summarised);
    tokens += estimateMessageTokens(summarised) - (measure.messageTokens[index] ?? 0);
  }
  const messages = request.messages.map((message, index) => replaced.get(index) ?? message);
  return { request: { ...request, messages }, tokens, summarised: replaced.size };
}
