import { describe, expect, it } from '@jest/globals';
import { estimatePromptTokens, measurePrompt } from '../../../../lib/core/context/estimate-prompt-tokens';
import { summaryCacheKey } from '../../../../lib/core/context/summarised-tool-result';
import { compactToolResults, type Summarise } from '../../../../lib/services/context-layers/compact-tool-results';
import { createSummaryCache } from '../../../../lib/services/context-layers/summary-cache';
import { summaryStore } from './fake-stores';
import { sizedConversation, toolResults } from './sized-conversation';

const quiet = () => undefined;
const options = { budgetTokens: 1000, keepRecent: 3 };

function recordingSummariser(answer = 'a short summary'): Summarise & { contents: string[] } {
  const contents: string[] = [];
  const summarise = Object.assign(
    async (content: string) => {
      contents.push(content);
      return answer;
    },
    { contents },
  );
  return summarise;
}

describe('compactToolResults', () => {
  it('replaces the largest old results with their summaries and counts the prompt again', async () => {
    const request = sizedConversation([3000, 4000, 100, 20, 20, 20]);
    const summarise = recordingSummariser();
    const summaries = createSummaryCache({ store: summaryStore(), log: quiet });

    const result = await compactToolResults(
      request,
      measurePrompt(request),
      options,
      { summaries, summarise },
      new AbortController().signal,
    );

    const results = toolResults(result.request);
    expect(result.summarised).toBe(2);
    expect(results[0]).toMatch(/^\[summarised \d+→3 tokens\]\na short summary$/);
    expect(results[1]).toMatch(/^\[summarised \d+→3 tokens\]\na short summary$/);
    expect(results.slice(2)).toEqual(toolResults(request).slice(2));
    expect(result.tokens).toBe(estimatePromptTokens(result.request));
    expect(summarise.contents).toEqual([toolResults(request)[1], toolResults(request)[0]]);
  });

  it('uses cached summaries instead of asking the model again', async () => {
    const request = sizedConversation([3000, 20, 20, 20]);
    const store = summaryStore();
    store.items.set(summaryCacheKey(toolResults(request)[0] ?? ''), '[summarised 3000→2 tokens]\ncached');
    const summarise = recordingSummariser();
    const summaries = createSummaryCache({ store, log: quiet });

    const result = await compactToolResults(
      request,
      measurePrompt(request),
      options,
      { summaries, summarise },
      new AbortController().signal,
    );

    expect(toolResults(result.request)[0]).toBe('[summarised 3000→2 tokens]\ncached');
    expect(summarise.contents).toEqual([]);
  });

  it('caches what the model answered, under the content hash', async () => {
    const request = sizedConversation([3000, 20, 20, 20]);
    const store = summaryStore();
    const summaries = createSummaryCache({ store, log: quiet });

    await compactToolResults(
      request,
      measurePrompt(request),
      options,
      { summaries, summarise: recordingSummariser() },
      new AbortController().signal,
    );

    expect(store.items.get(summaryCacheKey(toolResults(request)[0] ?? ''))).toMatch(/^\[summarised/);
  });

  it('returns the request itself when nothing is worth summarising', async () => {
    const request = sizedConversation([100, 100, 20, 20, 20]);
    const summarise = recordingSummariser();
    const summaries = createSummaryCache({ store: summaryStore(), log: quiet });

    const result = await compactToolResults(
      request,
      measurePrompt(request),
      options,
      { summaries, summarise },
      new AbortController().signal,
    );

    expect(result.request).toBe(request);
    expect(result.summarised).toBe(0);
  });

  it('throws when a model call fails, keeping the summaries already made', async () => {
    const request = sizedConversation([3000, 4000, 20, 20, 20]);
    const store = summaryStore();
    const summaries = createSummaryCache({ store, log: quiet });
    let calls = 0;
    const summarise: Summarise = async () => {
      calls++;
      if (calls === 2) throw new Error('node down');
      return 'fine';
    };

    await expect(
      compactToolResults(
        request,
        measurePrompt(request),
        options,
        { summaries, summarise, concurrency: 1 },
        new AbortController().signal,
      ),
    ).rejects.toThrow('node down');
    expect(store.items.size).toBe(1);
  });

  it('throws on an empty summary', async () => {
    const request = sizedConversation([3000, 20, 20, 20]);
    const summaries = createSummaryCache({ store: summaryStore(), log: quiet });

    await expect(
      compactToolResults(
        request,
        measurePrompt(request),
        options,
        { summaries, summarise: recordingSummariser('  ') },
        new AbortController().signal,
      ),
    ).rejects.toThrow('empty summary');
  });

  it('gives up at the deadline and stops the model calls', async () => {
    const request = sizedConversation([3000, 20, 20, 20]);
    const summaries = createSummaryCache({ store: summaryStore(), log: quiet });
    let stopped = false;
    const summarise: Summarise = (_content, signal) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          stopped = true;
          reject(signal.reason);
        });
      });

    await expect(
      compactToolResults(
        request,
        measurePrompt(request),
        options,
        { summaries, summarise, timeoutMs: 20 },
        new AbortController().signal,
      ),
    ).rejects.toThrow();
    expect(stopped).toBe(true);
  });
});
