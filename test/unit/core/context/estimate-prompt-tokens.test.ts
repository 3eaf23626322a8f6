import { describe, expect, it } from '@jest/globals';
import {
  estimateMessageTokens,
  estimatePromptTokens,
  estimateToolsTokens,
  IMAGE_TOKENS,
  measurePrompt,
} from '../../../../lib/core/context/estimate-prompt-tokens';
import { countTokens } from '../../../../lib/core/tokens/count-tokens';
import { agentConversation } from './conversation';

describe('estimatePromptTokens', () => {
  it('counts system, user and assistant content', () => {
    const request = {
      messages: [
        { role: 'system', content: 'tiktoken is great!' },
        { role: 'user', content: 'hello world' },
        { role: 'assistant', content: 'Hello, world!' },
      ] as const,
    };

    expect(estimatePromptTokens(request)).toBe(6 + 2 + 4);
  });

  it('counts a tool call as its name plus its arguments as compact JSON', () => {
    const message = {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call_1', function: { name: 'Read', arguments: { path: '/tmp/x.txt', limit: 250 } } }],
    } as const;

    expect(estimateMessageTokens(message)).toBe(countTokens('Read') + countTokens('{"path":"/tmp/x.txt","limit":250}'));
    expect(estimateMessageTokens(message)).toBe(1 + 11);
  });

  it('counts a tool result as its text, not its id', () => {
    expect(estimateMessageTokens({ role: 'tool', content: 'hello world', tool_call_id: 'toolu_0123456789' })).toBe(2);
  });

  it('counts each image as IMAGE_TOKENS', () => {
    expect(estimateMessageTokens({ role: 'user', content: 'hello world', images: ['aGVsbG8=', 'aGVsbG8='] })).toBe(
      2 + 2 * IMAGE_TOKENS,
    );
    expect(IMAGE_TOKENS).toBe(1_600);
  });

  it('counts tool definitions as compact JSON and leaves out thinking', () => {
    const request = agentConversation(0);
    const withThinking = {
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: 'ok', thinking: 'a long chain of thought' } as const,
      ],
    };

    expect(estimateToolsTokens(request.tools)).toBe(countTokens(JSON.stringify(request.tools?.[0])));
    expect(estimatePromptTokens(withThinking)).toBe(estimatePromptTokens(request) + countTokens('ok'));
  });

  it('sums the parts of a whole conversation', () => {
    const request = agentConversation(4);
    const parts =
      estimateToolsTokens(request.tools) +
      request.messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0);

    expect(estimatePromptTokens(request)).toBe(parts);
    expect(estimateToolsTokens(undefined)).toBe(0);
  });
});

describe('measurePrompt', () => {
  it('gives each message its estimate, the tools theirs, and the total', () => {
    const request = agentConversation(3);

    const measure = measurePrompt(request);

    expect(measure.messageTokens).toEqual(request.messages.map(estimateMessageTokens));
    expect(measure.toolsTokens).toBe(estimateToolsTokens(request.tools));
    expect(measure.total).toBe(estimatePromptTokens(request));
  });
});
