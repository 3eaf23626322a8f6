import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { estimatePromptTokens, IMAGE_TOKENS } from '../../../../lib/core/context/estimate-prompt-tokens';
import { promptTokenBound } from '../../../../lib/core/context/prompt-token-bound';
import type { OllamaMessage } from '../../../../lib/core/wire/ollama';
import { sampleText } from '../tokens/sample-text';
import { agentConversation } from './conversation';

describe('promptTokenBound', () => {
  it('is the UTF-8 size of what the estimate counts, images at IMAGE_TOKENS', () => {
    const request = {
      messages: [
        { role: 'user', content: 'héllo', images: ['aGVsbG8='] },
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'Read', arguments: { path: 'a' } } }] },
      ] satisfies OllamaMessage[],
    };

    expect(promptTokenBound(request)).toBe(6 + IMAGE_TOKENS + 4 + '{"path":"a"}'.length);
  });

  it('is never below the estimate, for an agent conversation with tools', () => {
    const request = agentConversation(5);

    expect(promptTokenBound(request)).toBeGreaterThanOrEqual(estimatePromptTokens(request));
  });

  it('is never below the estimate, whatever the text', () => {
    const texts = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 400 }),
      fc.string({ unit: 'grapheme', maxLength: 400 }),
      fc.integer({ min: 0, max: 3000 }).map((length) => sampleText(length)),
      fc.constantFrom('a'.repeat(1000), ' '.repeat(700), '!'.repeat(300), '日本語'.repeat(200)),
    );
    fc.assert(
      fc.property(fc.array(texts, { maxLength: 4 }), (contents) => {
        const request = { messages: contents.map((content) => ({ role: 'user', content }) as const) };
        expect(promptTokenBound(request)).toBeGreaterThanOrEqual(estimatePromptTokens(request));
      }),
      { numRuns: 200 },
    );
  });
});
