import { describe, expect, it } from '@jest/globals';
import {
  COMPACTION_MIN_TOKENS,
  SUMMARY_MAX_TOKENS,
  selectCompactionCandidates,
} from '../../../../lib/core/context/select-compaction-candidates';
import type { OllamaMessage } from '../../../../lib/core/wire/ollama';

/** A conversation whose tool results have the given sizes, oldest first; other messages cost 10. */
function conversation(resultTokens: readonly number[]): { messages: OllamaMessage[]; tokens: number[] } {
  const messages: OllamaMessage[] = [{ role: 'user', content: 'go' }];
  const tokens = [10];
  resultTokens.forEach((size, round) => {
    messages.push({ role: 'assistant', content: '', tool_calls: [{ function: { name: 'Read', arguments: {} } }] });
    tokens.push(10);
    messages.push({ role: 'tool', content: `result ${round}`, tool_call_id: `call_${round}` });
    tokens.push(size);
  });
  return { messages, tokens };
}

const total = (tokens: readonly number[]) => tokens.reduce((sum, value) => sum + value, 0);

describe('selectCompactionCandidates', () => {
  it('chooses the largest older results first and stops once the projection fits the budget', () => {
    const { messages, tokens } = conversation([3000, 9000, 5000, 100, 100, 100]);

    const chosen = selectCompactionCandidates(messages, tokens, total(tokens), { budgetTokens: 8000, keepRecent: 3 });

    expect(chosen.map((candidate) => candidate.tokens)).toEqual([9000, 5000]);
    expect(chosen.map((candidate) => messages[candidate.index]?.tool_call_id)).toEqual(['call_1', 'call_2']);
  });

  it('never chooses the newest keepRecent results, however large', () => {
    const { messages, tokens } = conversation([2000, 50_000, 50_000, 50_000]);

    const chosen = selectCompactionCandidates(messages, tokens, total(tokens), { budgetTokens: 1000, keepRecent: 3 });

    expect(chosen.map((candidate) => messages[candidate.index]?.tool_call_id)).toEqual(['call_0']);
  });

  it(`leaves results of ${COMPACTION_MIN_TOKENS} tokens or fewer alone`, () => {
    const { messages, tokens } = conversation([COMPACTION_MIN_TOKENS, COMPACTION_MIN_TOKENS + 1, 10, 10, 10]);

    const chosen = selectCompactionCandidates(messages, tokens, 1_000_000, { budgetTokens: 1000, keepRecent: 3 });

    expect(chosen).toEqual([{ index: 4, tokens: COMPACTION_MIN_TOKENS + 1 }]);
  });

  it('chooses nothing when the prompt is within the budget', () => {
    const { messages, tokens } = conversation([5000, 5000, 10, 10, 10]);

    expect(
      selectCompactionCandidates(messages, tokens, total(tokens), { budgetTokens: 20_000, keepRecent: 3 }),
    ).toEqual([]);
  });

  it('counts a chosen result as its summary at most', () => {
    const { messages, tokens } = conversation([4000, 4000, 10, 10, 10]);
    // Just fits after one summary (4000 → at most SUMMARY_MAX_TOKENS plus its marker).
    const budget = total(tokens) - 4000 + SUMMARY_MAX_TOKENS + 16;

    const chosen = selectCompactionCandidates(messages, tokens, total(tokens), { budgetTokens: budget, keepRecent: 3 });

    expect(chosen).toHaveLength(1);
  });
});
