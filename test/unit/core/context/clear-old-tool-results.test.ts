import { describe, expect, it } from '@jest/globals';
import {
  CLEARED_TOOL_RESULT,
  clearOldToolResults,
  toolResultKey,
} from '../../../../lib/core/context/clear-old-tool-results';
import {
  estimateMessageTokens,
  estimatePromptTokens,
  measurePrompt,
} from '../../../../lib/core/context/estimate-prompt-tokens';
import { agentConversation, deepFreeze, nextTurn, toolContents } from './conversation';

const NONE: ReadonlySet<string> = new Set();
const defaults = { triggerTokens: 100_000, keepRecent: 3, alreadyCleared: NONE };

describe('clearOldToolResults', () => {
  it('leaves a request under the trigger as it is', () => {
    const request = agentConversation(6);

    const result = clearOldToolResults(request, defaults);

    expect(result.request).toBe(request);
    expect(result.clearedIds).toEqual([]);
    expect(result.tokensBefore).toBe(estimatePromptTokens(request));
    expect(result.tokensAfter).toBe(result.tokensBefore);
  });

  it('clears all but the newest three tool results over the trigger', () => {
    const request = agentConversation(8);
    const trigger = estimatePromptTokens(request) - 1;

    const result = clearOldToolResults(request, { ...defaults, triggerTokens: trigger });

    const contents = toolContents(result.request);
    expect(contents.slice(0, 5)).toEqual(Array(5).fill(CLEARED_TOOL_RESULT));
    expect(contents.slice(5)).toEqual(toolContents(request).slice(5));
    expect(result.clearedIds).toEqual(['call_0', 'call_1', 'call_2', 'call_3', 'call_4']);
    expect(result.tokensAfter).toBe(estimatePromptTokens(result.request));
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });

  it('keeps each cleared message, its tool_call_id and every tool call', () => {
    const request = agentConversation(5);

    const result = clearOldToolResults(request, { ...defaults, triggerTokens: 1 });

    expect(result.request.messages).toHaveLength(request.messages.length);
    result.request.messages.forEach((message, index) => {
      const original = request.messages[index];
      if (original?.role === 'tool') expect(message).toEqual({ ...original, content: message.content });
      else expect(message).toBe(original);
    });
    expect(result.request.tools).toBe(request.tools);
    expect(result.request.model).toBe(request.model);
  });

  it('does not change the request it is given', () => {
    const request = deepFreeze(agentConversation(6));
    const copy = structuredClone(request);

    clearOldToolResults(request, { ...defaults, triggerTokens: 1 });

    expect(request).toEqual(copy);
  });

  it('clears remembered ids again under the trigger, reporting none as new', () => {
    const request = agentConversation(6);

    const result = clearOldToolResults(request, { ...defaults, alreadyCleared: new Set(['call_0', 'call_2']) });

    expect(toolContents(result.request).map((content) => content === CLEARED_TOOL_RESULT)).toEqual([
      true,
      false,
      true,
      false,
      false,
      false,
    ]);
    expect(result.clearedIds).toEqual([]);
    expect(result.tokensAfter).toBe(estimatePromptTokens(result.request));
  });

  it('keeps the boundary in place on the next turn, so the cleared prefix stays the same', () => {
    const first = agentConversation(10);
    const trigger = estimatePromptTokens(first) - 1;
    const turn1 = clearOldToolResults(first, { ...defaults, triggerTokens: trigger });
    const second = nextTurn(first, 10);

    const turn2 = clearOldToolResults(second, {
      ...defaults,
      triggerTokens: trigger,
      alreadyCleared: new Set(turn1.clearedIds),
    });

    expect(turn2.clearedIds).toEqual([]);
    expect(turn2.request.messages.slice(0, turn1.request.messages.length)).toEqual(turn1.request.messages);
  });

  it('moves the boundary forward only when the estimate passes the trigger again', () => {
    const first = agentConversation(10);
    const trigger = estimatePromptTokens(first) - 1;
    const turn1 = clearOldToolResults(first, { ...defaults, triggerTokens: trigger });
    let request = first;
    for (let round = 10; round < 40; round++) request = nextTurn(request, round);

    const later = clearOldToolResults(request, {
      ...defaults,
      triggerTokens: trigger,
      alreadyCleared: new Set(turn1.clearedIds),
    });

    expect(later.clearedIds[0]).toBe('call_7');
    expect(later.clearedIds.at(-1)).toBe('call_36');
    expect(toolContents(later.request).filter((content) => content !== CLEARED_TOOL_RESULT)).toHaveLength(3);
  });

  it('never clears the newest results, even under a remembered id', () => {
    const request = agentConversation(4);

    const result = clearOldToolResults(request, { ...defaults, alreadyCleared: new Set(['call_3']) });

    expect(result.request).toBe(request);
  });

  it('clears every result when keepRecent is 0', () => {
    const request = agentConversation(3);

    const result = clearOldToolResults(request, { ...defaults, triggerTokens: 1, keepRecent: 0 });

    expect(toolContents(result.request)).toEqual(Array(3).fill(CLEARED_TOOL_RESULT));
  });

  it('does nothing at a trigger of 0, remembered ids included', () => {
    const request = agentConversation(8);

    const result = clearOldToolResults(request, { ...defaults, triggerTokens: 0, alreadyCleared: new Set(['call_0']) });

    expect(result.request).toBe(request);
    expect(result.clearedIds).toEqual([]);
  });

  it('keys results without a tool_call_id by position and content, stably across turns', () => {
    const request = agentConversation(6, 200, false);
    const turn1 = clearOldToolResults(request, { ...defaults, triggerTokens: 1 });
    const appended = { ...request, messages: [...request.messages, { role: 'user', content: 'go on' } as const] };
    const edited = {
      ...request,
      messages: request.messages.map((message, index) => (index === 3 ? { ...message, content: 'changed' } : message)),
    };

    const turn2 = clearOldToolResults(appended, { ...defaults, alreadyCleared: new Set(turn1.clearedIds) });
    const rewritten = clearOldToolResults(edited, { ...defaults, alreadyCleared: new Set(turn1.clearedIds) });

    expect(turn1.clearedIds).toHaveLength(3);
    expect(turn1.clearedIds[0]).toMatch(/^position:3:[0-9a-f]{16}$/);
    expect(turn1.clearedIds[0]).toBe(toolResultKey(request.messages[3] ?? { role: 'tool', content: '' }, 3));
    expect(toolContents(turn2.request).slice(0, 3)).toEqual(Array(3).fill(CLEARED_TOOL_RESULT));
    expect(toolContents(rewritten.request).slice(0, 3)).toEqual(['changed', CLEARED_TOOL_RESULT, CLEARED_TOOL_RESULT]);
  });
  it('counts the results cleared in the request, remembered ones included, and each message as it goes on', () => {
    const request = agentConversation(8);

    const result = clearOldToolResults(request, { ...defaults, triggerTokens: 1, alreadyCleared: new Set(['call_1']) });

    expect(result.cleared).toBe(5);
    expect(result.clearedIds).toEqual(['call_0', 'call_2', 'call_3', 'call_4']);
    expect(result.messageTokens).toEqual(result.request.messages.map(estimateMessageTokens));
  });

  it('takes the measure the caller has already made instead of counting again', () => {
    const request = agentConversation(8);
    const measure = measurePrompt(request);
    const inflated = { ...measure, total: measure.total + 1_000_000 };

    const result = clearOldToolResults(request, { ...defaults, triggerTokens: measure.total + 1 }, inflated);

    expect(result.tokensBefore).toBe(inflated.total);
    expect(result.cleared).toBe(5);
  });
});
