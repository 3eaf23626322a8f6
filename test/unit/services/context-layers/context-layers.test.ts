import { describe, expect, it } from '@jest/globals';
import { PROMPT_TOO_LARGE } from '../../../../lib/core/context/cap-prompt';
import { CLEARED_TOOL_RESULT } from '../../../../lib/core/context/clear-old-tool-results';
import { estimatePromptTokens } from '../../../../lib/core/context/estimate-prompt-tokens';
import { RouterError } from '../../../../lib/core/errors';
import type { OllamaChatRequest } from '../../../../lib/core/wire/ollama';
import { createContextLayers } from '../../../../lib/services/context-layers/context-layers';
import { createStickyClearedIds } from '../../../../lib/services/context-layers/sticky-cleared-ids';
import { createSummaryCache } from '../../../../lib/services/context-layers/summary-cache';
import { loadConfig } from '../../../../lib/services/platform/config';
import { clearedIdsStore, summaryStore } from './fake-stores';
import { sizedConversation, toolResults } from './sized-conversation';

const quiet = () => undefined;
const signal = new AbortController().signal;

function layers(env: Record<string, string>, summarise = async () => 'the gist') {
  const store = clearedIdsStore();
  const lines: string[] = [];
  const summarised: string[] = [];
  const apply = createContextLayers({
    settings: loadConfig(env).context,
    clearedIds: createStickyClearedIds({ store, log: quiet }),
    compaction: {
      summaries: createSummaryCache({ store: summaryStore(), log: quiet }),
      summarise: async (content) => {
        summarised.push(content);
        return summarise();
      },
    },
    log: (line) => lines.push(line),
  });
  return { apply, store, lines, summarised };
}

/** Two large old results, then small ones: clearing the two brings the prompt far below the trigger. */
const bigThenSmall = (smallRounds: number): OllamaChatRequest =>
  sizedConversation([2000, 2000, ...Array<number>(smallRounds).fill(20)]);

describe('createContextLayers', () => {
  it('leaves a plainly small prompt alone: not measured, and the table not asked', async () => {
    const { apply, store } = layers({});
    const request = bigThenSmall(3);

    const result = await apply({ request, tags: [], signal });

    expect(result).toEqual({ request, cleared: 0, summarised: 0 });
    expect(store.loads).toEqual([]);
  });

  it('measures a prompt whose size might cross a threshold, and reports the estimate', async () => {
    const request = bigThenSmall(3);
    const tokens = estimatePromptTokens(request);
    const { apply, store } = layers({ FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS: String(tokens + 1) });

    const result = await apply({ request, tags: [], signal });

    expect(result).toEqual({ request, promptTokens: tokens, cleared: 0, summarised: 0 });
    expect(store.loads).toEqual([]);
  });

  it('clears old tool results above the trigger and keeps the cut on the next turn', async () => {
    const { apply, store } = layers({ FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS: '3000' });
    const turn1 = bigThenSmall(3);
    const turn2 = bigThenSmall(4);

    const first = await apply({ request: turn1, tags: [], signal });
    const second = await apply({ request: turn2, tags: [], signal });

    expect(toolResults(first.request).map((content) => content === CLEARED_TOOL_RESULT)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    // Without the remembered cut, the third result (now older than the newest three) would go too.
    expect(second.cleared).toBe(2);
    expect(toolResults(second.request)[2]).toBe(toolResults(turn2)[2]);
    expect(second.promptTokens).toBe(estimatePromptTokens(second.request));
    expect(store.loads).toHaveLength(1);
    expect(store.saves.map((save) => save.ids)).toEqual([['call_0', 'call_1']]);
  });

  it('remembers the cut per conversation: a session tag names it', async () => {
    const { apply, store } = layers({ FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS: '3000' });

    await apply({ request: bigThenSmall(3), tags: ['session:abc'], signal });

    expect(store.saves[0]?.key).toBe('session:abc');
  });

  it('answers 413 when the prompt is still over the cap after clearing', async () => {
    const { apply } = layers({ FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS: '3000', FLEET_MAX_PROMPT_TOKENS: '1000' });
    const request = sizedConversation([2000, 20, 20, 20, 1500, 20, 20]);

    const failure = await apply({ request, tags: [], signal }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(RouterError);
    expect(failure).toMatchObject({ status: 413, code: PROMPT_TOO_LARGE });
    expect((failure as RouterError).message).toMatch(/^prompt is too long: \d+ tokens > 1000 maximum/);
  });

  it('lets a prompt over the cap through when clearing brings it under', async () => {
    const request = bigThenSmall(3);
    const { apply } = layers({
      FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS: '3000',
      FLEET_MAX_PROMPT_TOKENS: String(estimatePromptTokens(request) - 1),
    });

    const result = await apply({ request, tags: [], signal });

    expect(result.cleared).toBe(2);
  });

  it('summarises only with compaction on and the prompt over its budget', async () => {
    const off = layers({ FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS: '0', FLEET_CONTEXT_COMPACTION_BUDGET_TOKENS: '1000' });
    const on = layers({
      FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS: '0',
      FLEET_CONTEXT_COMPACTION: 'true',
      FLEET_CONTEXT_COMPACTION_BUDGET_TOKENS: '1000',
    });
    const request = bigThenSmall(3);

    await off.apply({ request, tags: [], signal });
    const result = await on.apply({ request, tags: [], signal });

    expect(off.summarised).toEqual([]);
    expect(on.summarised).toHaveLength(2);
    expect(result.summarised).toBe(2);
    expect(toolResults(result.request)[0]).toMatch(/^\[summarised \d+→\d+ tokens\]\nthe gist$/);
    expect(result.promptTokens).toBe(estimatePromptTokens(result.request));
  });

  it('fails open when summarising fails: the request as Layer 1 left it, and one line of log', async () => {
    const { apply, lines } = layers(
      {
        FLEET_CONTEXT_CLEAR_TRIGGER_TOKENS: '0',
        FLEET_CONTEXT_COMPACTION: 'true',
        FLEET_CONTEXT_COMPACTION_BUDGET_TOKENS: '1000',
      },
      async () => {
        throw new Error('no model');
      },
    );
    const request = bigThenSmall(3);

    const result = await apply({ request, tags: [], signal });

    expect(result.request).toBe(request);
    expect(result.summarised).toBe(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('no model');
  });
});
