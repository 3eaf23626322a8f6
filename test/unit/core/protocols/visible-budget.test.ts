import { describe, expect, it } from '@jest/globals';
import { createVisibleBudget } from '../../../../lib/core/protocols/visible-budget';
import type { OllamaChatChunk } from '../../../../lib/core/wire/ollama';

const say = (content: string, thinking?: string): OllamaChatChunk => ({
  message: { role: 'assistant', content, ...(thinking === undefined ? {} : { thinking }) },
  done: false,
});

describe('createVisibleBudget', () => {
  it('cuts the line that passes the budget and closes with length, the visible count and the prompt estimate', () => {
    const budget = createVisibleBudget({ limit: 3, promptTokens: 12 });

    expect(budget.push(say('', ' hmm hmm'))).toHaveLength(1);
    expect(budget.push(say(' one two'))).toEqual([say(' one two')]);
    const out = budget.push(say(' three four five'));

    expect(out.map((line) => line.message?.content)).toEqual([' three', '']);
    expect(out[1]).toMatchObject({ done: true, done_reason: 'length', eval_count: 3, prompt_eval_count: 12 });
    expect(budget.spent).toBe(true);
    expect(budget.push(say(' six'))).toEqual([]);
    // The trace still counts the thinking the node did.
    expect(budget.generated()).toBe(5);
  });

  it('passes a reply that ends within the budget, its eval_count the visible count', () => {
    const budget = createVisibleBudget({ limit: 10 });
    budget.push(say('', ' hmm'));
    const [last] = budget.push({ ...say(' done'), done: true, done_reason: 'stop', eval_count: 40 });

    expect(last).toMatchObject({ done: true, done_reason: 'stop', eval_count: 1 });
    expect(budget.generated()).toBe(40);
  });

  it('closes without an empty cut line when nothing of the line fits', () => {
    const budget = createVisibleBudget({ limit: 1 });
    budget.push(say(' one'));

    expect(budget.push(say(' two'))).toEqual([expect.objectContaining({ done: true, done_reason: 'length' })]);
  });
});
